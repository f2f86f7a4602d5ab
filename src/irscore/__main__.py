"""`python -m irscore`: the same as the `irscore` command."""

from irscore.cli import entry

entry()
