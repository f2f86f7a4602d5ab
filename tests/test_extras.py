"""The core and its extras (pyproject.toml): `import irscore`, `irscore evaluate` and the
API's evaluate load no module of an extra, `compare` only the stats extra's; a command or
function whose extra is missing says in one line which one to install (exit 2, no
traceback, nothing written); irscore.engine.system.extras names the packages pyproject.toml's
extras install, and no core dependency brings one of them."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from irscore.cli import common
from irscore.engine.system import extras

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
QRELS, RUN, OTHER = GOLDEN / "small.qrels", GOLDEN / "small.run", GOLDEN / "medium.run"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EVERY_EXTRA_MODULE = sorted({name for names in extras.MODULES.values() for name in names})


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO
    )


def test_the_core_commands_and_api_import_no_extra():
    code = f"""
import contextlib, io, json, sys
import irscore
from irscore.cli import main
EXTRA = set({EVERY_EXTRA_MODULE!r})
loaded = lambda: sorted(m for m in sys.modules if m.partition(".")[0] in EXTRA)
after = {{"import irscore": loaded()}}
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["evaluate", "{QRELS}", "{RUN}"]) == 0  # the plain path
    after["evaluate"] = loaded()
    assert main(["evaluate", "-q", "-J", "-m", "all_trec", "{QRELS}", "{RUN}"]) == 0  # engine
    after["evaluate -J"] = loaded()
irscore.evaluate("{QRELS}", "{RUN}")
after["irscore.evaluate"] = loaded()
with contextlib.redirect_stdout(io.StringIO()):  # last: it loads scipy for the rest
    assert main(["compare", "{QRELS}", "{RUN}", "{OTHER}", "--test", "all"]) == 0
    after["compare"] = sorted({{m.partition(".")[0] for m in loaded()}})
print(json.dumps(after))
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    after = json.loads(done.stdout)
    steps = ["import irscore", "evaluate", "evaluate -J", "irscore.evaluate", "compare"]
    assert list(after) == steps
    assert after == {step: [] for step in steps} | {"compare": ["scipy"]}, after


def _without(extra: str, call: str) -> subprocess.CompletedProcess:
    """`call` (Python) in a process where the extra's modules cannot be imported."""
    hidden = list(extras.MODULES[extra])
    return _python(f"import sys\nsys.modules.update(dict.fromkeys({hidden!r}))\n{call}")


def _command(argv: list[str]) -> str:
    return f"sys.argv = {['irscore', *argv]!r}\nfrom irscore.cli import entry\nentry()"


def test_serve_without_the_web_extra_names_it():
    done = _without("web", _command(["serve"]))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "irscore: error: irscore serve needs irscore's web extra (starlette is not "
        "installed): pip install 'irscore[web]'\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", str(QRELS), str(RUN), "--out", "OUT"],
        ["compare", str(QRELS), str(RUN), str(OTHER), "--plot", "OUT.png"],
        ["explain", "--grades", "3,2,0", "--plot", "OUT.png"],
    ],
    ids=["audit", "compare --plot", "explain --plot"],
)
def test_plots_without_the_report_extra_name_it_and_write_nothing(tmp_path, argv):
    out = tmp_path / "out"
    argv = [arg.replace("OUT", str(out)) for arg in argv]
    done = _without("report", _command(argv))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "irscore: error: drawing plots needs irscore's report extra (matplotlib is not "
        "installed): pip install 'irscore[report]'\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", str(QRELS), str(RUN), str(OTHER)],
        ["interleave", str(QRELS), str(RUN), str(OTHER), "--log", "OUT"],
        ["audit", str(QRELS), str(RUN), "--out", "OUT"],
    ],
    ids=["compare", "interleave", "audit"],
)
def test_the_paired_tests_without_the_stats_extra_name_it_and_write_nothing(tmp_path, argv):
    out = tmp_path / "out"
    done = _without("stats", _command([arg.replace("OUT", str(out)) for arg in argv]))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"irscore: error: irscore {argv[0]} needs irscore's stats extra (scipy is not "
        "installed): pip install 'irscore[stats]'\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_api_raises_missing_extra_naming_it():
    code = f"""
import irscore
from irscore.engine.system.extras import MissingExtra
try:
    irscore.audit("{QRELS}", ["{RUN}"])
except ImportError as error:
    print(type(error).__name__, error)
"""
    done = _without("report", code)
    assert done.stdout == (
        "MissingExtra irscore.audit needs irscore's report extra (matplotlib is not "
        "installed): pip install 'irscore[report]'\n"
    ), done.stderr
    code = f"""
import irscore
try:
    irscore.compare("{QRELS}", "{RUN}", "{OTHER}")
except ImportError as error:
    print(type(error).__name__, error)
"""
    done = _without("stats", code)
    assert done.stdout == (
        "MissingExtra irscore.compare needs irscore's stats extra (scipy is not "
        "installed): pip install 'irscore[stats]'\n"
    ), done.stderr
    code = 'import irscore\ntry:\n    irscore.evaluate("irds:cranfield", "{RUN}")\n'
    code += "except ImportError as error:\n    print(error)\n"
    done = _without("workflow", code.replace("{RUN}", str(RUN)))
    assert done.stdout == (
        "irds:cranfield needs irscore's workflow extra (ir_datasets is not installed): "
        "pip install 'irscore[workflow]'\n"
    ), done.stderr


def test_an_extras_module_missing_anywhere_is_one_line(capsys):
    def needs_sklearn(args):
        raise ModuleNotFoundError("No module named 'sklearn'", name="sklearn.metrics")

    assert common.execute(needs_sklearn, argparse.Namespace(command="audit")) == 2
    assert capsys.readouterr().err == (
        "irscore: error: irscore audit needs irscore's workflow extra (sklearn.metrics is "
        "not installed): pip install 'irscore[workflow]'\n"
    )

    def needs_other(args):
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    with pytest.raises(ModuleNotFoundError):  # not an extra's: a bug, with its traceback
        common.execute(needs_other, argparse.Namespace(command="audit"))


def extra_requirements(extra: str) -> set[str]:
    """The distributions pyproject.toml's `extra` installs, the extras it includes too."""
    names = set()
    for text in PROJECT["optional-dependencies"][extra]:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == "irscore":
            for included in requirement.extras:
                names |= extra_requirements(included)
        else:
            names.add(canonicalize_name(requirement.name))
    return names


def _closure(names: set[str]) -> set[str]:
    """`names` and everything they require (installed metadata, markers evaluated)."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(requirement.name))
    return seen


def test_each_extras_modules_are_installed_by_that_extra_and_never_by_the_core():
    providers = metadata.packages_distributions()
    core = _closure({canonicalize_name(Requirement(t).name) for t in PROJECT["dependencies"]})
    for extra, modules in extras.MODULES.items():
        installs = extra_requirements(extra)
        for module in modules:
            (distribution,) = {canonicalize_name(d) for d in providers[module]}
            assert distribution in installs, f"{module}: {distribution} is not in [{extra}]"
            assert distribution not in core, f"the core brings {distribution} ({module})"
    # `pip install irscore` at the locked versions: the three libraries and pandas' two
    assert core == {"numpy", "pandas", "pyarrow", "python-dateutil", "tzdata"}
