"""irscore: reproducible offline retrieval evaluation.

The Python API is `irscore.evaluate`, `irscore.iter_evaluate`, `irscore.compare`,
`irscore.audit`, `irscore.measures` and `irscore.write_run` (see `irscore.api`); a bad input raises
`irscore.InputError`. `import irscore` loads no numerical library, the first call does.
The modules below are in layers (engine, pipeline, analysis, workbench, report, cli,
web): no module of the package shares a name with an API function, so importing one
leaves the API as it is.
"""

from irscore.api import audit, compare, evaluate, iter_evaluate, measures, write_run
from irscore.engine.conventions import Convention
from irscore.engine.errors import InputError

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
