"""The optional extras of `pip install irscore[...]`: the modules each brings, and the
one-line error that names the extra to install when a command or function needs one
that is missing (the core, `pip install irscore`, scores runs without any of them)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

# The `import` names each extra of pyproject.toml installs, beyond the core (the workflow
# and the page draw plots too: they include the report's). tests/test_extras.py checks
# that pyproject.toml's extras agree.
MODULES = {
    "report": ("matplotlib", "yaml"),
    "stats": ("scipy",),
    "workflow": (
        "snakemake",
        "ir_datasets",
        "rank_bm25",
        "Stemmer",
        "stop_words",
        "nltk",
        "sklearn",
        "pytrec_eval",
        "ir_measures",
    ),
    "web": ("starlette", "uvicorn", "jinja2"),
}


class MissingExtra(ModuleNotFoundError):
    """What was asked for needs an extra that is not installed; the message names it."""


def message(what: str, extra: str, module: str) -> str:
    """One line: what needs which extra, the module found missing, the command to run."""
    return (
        f"{what} needs irscore's {extra} extra ({module} is not installed): "
        f"pip install 'irscore[{extra}]'"
    )


def require(extra: str, what: str, modules: Sequence[str] | None = None) -> None:
    """Raise MissingExtra unless the extra's modules (or the `modules` of it given) can
    be imported; nothing is imported here, so the check costs no start-up."""
    for module in MODULES[extra] if modules is None else modules:
        if importlib.util.find_spec(module) is None:
            raise MissingExtra(message(what, extra, module), name=module)


def extra_of(module: str | None) -> str | None:
    """The extra that installs `module` (a dotted name: its top package counts), if any."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, names in MODULES.items() if top in names), None)
