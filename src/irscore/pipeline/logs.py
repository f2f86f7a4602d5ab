"""Send a pipeline step's log records and stderr to its Snakemake log file."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator


@contextlib.contextmanager
def logging_to(path: str | os.PathLike) -> Iterator[None]:
    """Within the block, INFO log records and anything written to stderr go to `path`;
    an exception leaving the block is logged there before it propagates."""
    with open(path, "w", encoding="utf-8") as stream, contextlib.redirect_stderr(stream):
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        try:
            yield
        except Exception as error:
            # Snakemake prints the traceback to its own stderr; the job's log keeps the cause.
            logging.getLogger("irscore").error("%s", error)
            raise
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
