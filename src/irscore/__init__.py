"""irscore: reproducible offline retrieval evaluation.

The Python API is `irscore.evaluate`, `irscore.compare` and `irscore.audit`
(see `irscore.api`); a bad input raises `irscore.InputError`. `import irscore`
loads no numerical library, the first call does.
"""

import sys
import types

from irscore.api import audit, compare, evaluate
from irscore.engine.conventions import Convention
from irscore.engine.errors import InputError

__version__ = "0.1.0"
__all__ = ["Convention", "InputError", "audit", "compare", "evaluate"]
_API = {"audit": audit, "compare": compare, "evaluate": evaluate}


class _Package(types.ModuleType):
    """The package keeps its API functions when the submodules of the same names
    (irscore.evaluate, irscore.audit) are imported: Python would otherwise set the
    package attribute to the submodule. Import those by
    `from irscore.engine.evaluate import ...`."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _API and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
