"""irscore: reproducible offline retrieval evaluation.

The Python API is `irscore.evaluate`, `irscore.iter_evaluate`, `irscore.compare`,
`irscore.audit`, `irscore.measures` and `irscore.write_run` (see `irscore.api`); a bad input
raises `irscore.InputError`. `import irscore` loads none of them, nor any numerical library:
the first use does.
The modules below are in layers (engine, pipeline, analysis, workbench, report, cli,
web): no module of the package shares a name with an API function, so importing one
leaves the API as it is.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = [
    "Convention",
    "InputError",
    "audit",
    "compare",
    "evaluate",
    "iter_evaluate",
    "measures",
    "write_run",
]
_HOMES = {
    "Convention": "irscore.engine.ranking.conventions",
    "InputError": "irscore.engine.reading.errors",
}


def __getattr__(name: str) -> Any:
    """The API's names, each imported when first asked for (PEP 562), so that the command
    line, which imports this package first, pays only for the modules it uses."""
    if name not in __all__:
        raise AttributeError(f"module 'irscore' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES.get(name, "irscore.api")), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
