"""The package's layers, checked from its modules' imports: imports go down only.

cli, api and web are on top; the report above the analysis and the workbench;
those two above the pipeline and the engine; the engine imports no other layer.
Every `import` and `from ... import` counts, the lazy ones inside functions and
the ones only type checkers read included: each is a dependency a reader follows.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "irscore"
# What each layer may import besides itself. The top (cli, api, web) may import
# every layer and one another; analysis and workbench are peers that do not.
MAY_IMPORT = {
    "engine": set(),
    "pipeline": {"engine"},
    "analysis": {"pipeline", "engine"},
    "workbench": {"pipeline", "engine"},
    "report": {"analysis", "workbench", "pipeline", "engine"},
}
TOP = {"api", "cli", "web", "ir_measures_provider", "__init__", "__main__"}
LAYERS = set(MAY_IMPORT) | TOP


def module_name(path: Path) -> str:
    """`irscore.engine.reading.trec` for src/irscore/engine/reading/trec.py (a package: its
    __init__)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, module: str, is_package: bool = False) -> set[str]:
    """The irscore modules (or names in them) that `source`, the text of `module`, imports
    anywhere: at the top, inside functions, under TYPE_CHECKING; relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "irscore" or name.startswith("irscore.")}


def layer_of(name: str) -> str:
    """The layer of a dotted name under irscore: its first part (`irscore` itself: the top)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def upward_imports(module: str, names: set[str]) -> list[str]:
    """The names `module` imports from a layer its own layer may not import."""
    layer = layer_of(module)
    if layer in TOP:
        return []
    allowed = MAY_IMPORT[layer] | {layer}
    # `from irscore import X` reaches the package's API (the top), whatever X is.
    return sorted(n for n in names if layer_of(n) not in allowed)


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_lives_in_a_layer():
    loose = [module_name(p) for p in modules() if layer_of(module_name(p)) not in LAYERS]
    assert loose == [], "modules outside the layers (engine, pipeline, analysis, ...)"


def test_each_layer_says_what_it_holds_and_may_import():
    for layer in MAY_IMPORT:
        doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text()))
        assert doc and "import" in doc, f"{layer}/__init__.py: no docstring naming its imports"


def test_imports_go_down_the_layers_only():
    found = {}
    for path in modules():
        module = module_name(path)
        names = imported(path.read_text(), module, path.name == "__init__.py")
        if bad := upward_imports(module, names):
            found[module] = bad
    assert found == {}, "imports up the layers"


def test_a_lazy_upward_import_is_seen():
    """The check reads imports inside functions and relative ones: an engine module
    that imports the report's plots when called is caught."""
    source = (
        "from irscore.engine.reading import trec\n"
        "def save():\n"
        "    from irscore.report import plots\n"
        "    from ..analysis.stats import paired_t\n"
    )
    names = imported(source, "irscore.engine.evaluate")
    assert names == {
        "irscore.engine.reading.trec",
        "irscore.report.plots",
        "irscore.analysis.stats.paired_t",
    }
    assert upward_imports("irscore.engine.evaluate", names) == [
        "irscore.analysis.stats.paired_t",
        "irscore.report.plots",
    ]
    assert upward_imports("irscore.report.workbench", {"irscore.workbench.interleave"}) == []
    assert upward_imports("irscore.workbench.pool", {"irscore.analysis.stats"}) == [
        "irscore.analysis.stats"
    ]


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_a_layer_package_imports_nothing_itself(layer):
    """`import irscore.engine.reading.trec` loads no other module of its layer: a command loads
    only what it uses (and the Snakefile reads report.layout without pandas)."""
    tree = ast.parse((PACKAGE / layer / "__init__.py").read_text())
    assert not [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
