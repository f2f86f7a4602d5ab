"""The package's layers, checked from its modules' imports: imports go down only.

cli, api and web are on top; the report above the analysis and the workbench;
those two above the pipeline and the engine; the engine imports no other layer.
Every `import` and `from ... import` counts, the lazy ones inside functions and
the ones only type checkers read included: each is a dependency a reader follows.

Within the engine, its rooms (subpackages) are layers too, in ENGINE_ROOMS' order,
its few loose modules (evaluate, the API's arguments, ...) on top of them all; and no
module of the package is much above 500 lines.
"""

from __future__ import annotations

import ast
import re
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
TOP = {"api", "api_streams", "cli", "web", "ir_measures_provider", "__init__", "__main__"}
LAYERS = set(MAY_IMPORT) | TOP
# The engine's rooms, bottom first: each imports only the rooms before it (and itself);
# the modules loose at the engine's top import any room, and no room imports them.
ENGINE_ROOMS = ("system", "reading", "measures", "ranking", "output", "small")
MOST_LOOSE = 12  # modules at the engine's top, beside the rooms
MOST_LINES = 500


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


def room_of(name: str) -> str:
    """The engine room of a dotted name under irscore.engine ("top" for a loose module
    or the engine package itself)."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in ENGINE_ROOMS else "top"


def rooms_up(module: str, names: set[str]) -> list[str]:
    """The engine names that `module`, in one of the engine's rooms, imports from a room
    above its own, or from the engine's loose top."""
    room = room_of(module)
    if room == "top":
        return []
    below = set(ENGINE_ROOMS[: ENGINE_ROOMS.index(room) + 1])
    engine = (n for n in names if n.startswith("irscore.engine."))
    return sorted(n for n in engine if room_of(n) not in below)


def test_the_engines_rooms_import_only_the_rooms_below():
    found = {}
    for path in sorted((PACKAGE / "engine").rglob("*.py")):
        module = module_name(path)
        names = imported(path.read_text(), module, path.name == "__init__.py")
        if bad := rooms_up(module, names):
            found[module] = bad
    assert found == {}, "imports up the engine's rooms"


def test_an_import_up_the_engines_rooms_is_seen():
    """A reader that ranks, a measure that reads the engine's loose top, and one room's
    lazy import of a room above are caught; the top and imports down are not."""
    assert rooms_up("irscore.engine.reading.trec", {"irscore.engine.ranking.rank.Notes"}) == [
        "irscore.engine.ranking.rank.Notes"
    ]
    assert rooms_up("irscore.engine.measures.prefs", {"irscore.engine.prefs.Group"}) == [
        "irscore.engine.prefs.Group"
    ]
    source = "def f():\n    from irscore.engine.small import plain_measures\n"
    names = imported(source, "irscore.engine.output.naming")
    assert rooms_up("irscore.engine.output.naming", names) == [
        "irscore.engine.small.plain_measures"
    ]
    assert rooms_up("irscore.engine.small.plain_evaluate", {"irscore.engine.system.forked"}) == []
    assert rooms_up("irscore.engine.evaluate", {"irscore.engine.small.plain_measures"}) == []
    assert rooms_up("irscore.engine.system.arrays", {"numpy", "irscore.engine.system"}) == []


def test_every_subpackage_of_the_engine_is_a_room_in_order():
    found = {p.parent.name for p in (PACKAGE / "engine").glob("*/__init__.py")}
    assert found == set(ENGINE_ROOMS)


def test_few_modules_are_loose_at_the_engines_top():
    loose = [p.stem for p in (PACKAGE / "engine").glob("*.py") if p.stem != "__init__"]
    assert len(loose) <= MOST_LOOSE, sorted(loose)


@pytest.mark.parametrize("room", ENGINE_ROOMS)
def test_each_room_says_what_it_holds_and_may_import(room):
    """measures/ names the measures' public pieces at its top, as it did; the other rooms
    load nothing: the small-file path imports reading/'s streams without numpy."""
    tree = ast.parse((PACKAGE / "engine" / room / "__init__.py").read_text())
    doc = ast.get_docstring(tree)
    assert doc and "import" in doc, f"engine/{room}/__init__.py: no docstring naming its imports"
    if room != "measures":
        assert not [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]


def test_no_module_is_much_above_500_lines():
    """A file is a concern a reader takes in at once."""
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in modules()
        if (n := len(p.read_text().splitlines())) > MOST_LINES
    }
    assert long == {}


def engine_layout() -> dict[str, str]:
    """docs/workflow.md's Layout entries for the engine: {room or "(top)": its text}."""
    doc = (PACKAGE.parents[1] / "docs" / "workflow.md").read_text()
    block = doc.split("src/irscore/engine/", 1)[1].split("src/irscore/pipeline/", 1)[0]
    entries: dict[str, str] = {}
    for line in block.splitlines()[1:]:
        head, _, text = line.strip().partition(" ")
        if line.startswith("  ") and not line.startswith("   "):
            entries[head.rstrip("/")] = text
        elif entries:
            entries[next(reversed(entries))] += " " + line.strip()
    return entries


def test_the_docs_layout_names_the_engines_rooms_and_modules_in_order():
    """Each room in its order, each of its modules named (measures/: by kind), and each
    module at the engine's top: a module added without a place in the picture fails."""
    entries = engine_layout()
    assert list(entries) == [*ENGINE_ROOMS, "(top)"]
    for room in ENGINE_ROOMS:
        if room != "measures":
            stems = {p.stem for p in (PACKAGE / "engine" / room).glob("*.py")} - {"__init__"}
            assert stems <= set(re.findall(r"\w+", entries[room])), room
    top = {p.stem for p in (PACKAGE / "engine").glob("*.py")} - {"__init__"}
    assert top <= set(re.findall(r"\w+", entries["(top)"]))
