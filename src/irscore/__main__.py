"""`python -m irscore`: the same as the `irscore` command."""

import sys

from irscore.cli import main

sys.exit(main())
