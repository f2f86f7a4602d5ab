"""What the README's install table, docs/install.md and docs/testing.md say about the core,
the extras, the lock and the lower-bound CI venv is what pyproject.toml, requirements.lock
and .ci/run hold."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from doc_pages import page, section
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_extras import extra_requirements

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]
CI = (REPO / ".ci" / "run").read_text()
LOWER = CI.split("# --- lower bounds (issue 46): begin")[1].split("# --- lower bounds")[0]


def _rows(text: str) -> list[list[str]]:
    """The body rows of the one Markdown table in `text`, as lists of cells."""
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines[1:]]
    return [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]


def _direct(extra: str) -> set[str]:
    """The distributions an extra names itself (not through another extra)."""
    names = {canonicalize_name(Requirement(text).name) for text in EXTRAS[extra]}
    return names - {"irscore"}


def _lower_bounds() -> dict[str, str]:
    """{name: lowest version} of the core and the stats extra, from pyproject.toml (each a
    single `>=`): the bounds CI tests."""
    bounds = {}
    for requirement in map(Requirement, [*PROJECT["dependencies"], *EXTRAS["stats"]]):
        (spec,) = requirement.specifier
        assert spec.operator == ">="
        bounds[requirement.name] = spec.version
    return bounds


def test_the_readme_install_table_is_pyprojects():
    rows = _rows(section(page("README.md"), "## Install"))
    core = [row for row in rows if row[1] == "`pip install irscore`"]
    assert len(core) == 1
    assert re.findall(r"`([^`]+)`", core[0][2]) == PROJECT["dependencies"]
    named = {}
    for _for, install, adds in rows:
        match = re.fullmatch(r"`pip install 'irscore\[(\w+)\]'`", install)
        if match:
            named[match[1]] = [name for name in re.findall(r"`([^`.]+)`", adds)]
    assert set(named) == set(EXTRAS)
    for extra, names in named.items():
        for name in names:
            added = canonicalize_name(name) in extra_requirements(extra)
            assert added, f"[{extra}] does not add {name}"


def test_the_install_page_lists_each_extras_packages():
    table = section(page("install.md"), "## The library: the core and its extras")
    rows = {row[0].strip("`"): row for row in _rows(table)}
    assert set(rows) == set(EXTRAS)
    for extra in ("report", "workflow", "web"):
        listed = {canonicalize_name(name) for name in rows[extra][2].split(", ")}
        assert listed == _direct(extra), extra
        included = {
            name
            for text in EXTRAS[extra]
            if canonicalize_name(Requirement(text).name) == "irscore"
            for name in Requirement(text).extras
        }
        said = re.search(r"includes (`\w+`(?: and `\w+`)?)", rows[extra][1])
        assert set(re.findall(r"`(\w+)`", said[1]) if said else []) == included, extra


def test_the_install_page_renews_the_lock_as_its_header_says():
    command = re.search(r"```\n(\.venv/bin/uv pip compile .*)\n```", page("install.md"))[1]
    header = (REPO / "requirements.lock").read_text().splitlines()[1]
    assert header == f"#    {command.removeprefix('.venv/bin/')}"


def test_the_lower_bounds_said_are_pyprojects_and_ci_builds_them():
    bounds = _lower_bounds()
    assert {"numpy", "pandas", "pyarrow", "scipy"} == set(bounds)
    stated = ", ".join(f"{name} {version}" for name, version in bounds.items())
    as_built = ", ".join(  # uv's lowest-direct installs x.y as x.y.0
        f"{name} {version}{'.0' * (version.count('.') == 1)}" for name, version in bounds.items()
    )
    for text in (page("testing.md"), LOWER):
        assert as_built in " ".join(text.replace("# ", "").split()), stated
    install = " ".join(page("install.md").split())
    for name, version in bounds.items():
        assert f"{name} {version}" in install
    assert "--resolution lowest-direct -e '.[stats]'" in LOWER
    assert "Version(have) == Version(bound.version)" in LOWER  # the versions are checked


def test_the_lower_bound_run_lists_existing_tests_and_leaves_out_those_said():
    modules = re.findall(r"tests/(test_\w+)\.py", LOWER.replace('"$api"', "tests/test_api.py"))
    for module in modules:
        assert (REPO / "tests" / f"{module}.py").exists(), module
    left_out = re.findall(r'--deselect "?([^"\s]+)"?', LOWER)
    numbers = {"three": 3, "four": 4, "five": 5}
    said = re.search(r"the (\w+) tests that need an extra are left out", page("testing.md"))
    assert said and numbers[said[1]] == len(left_out)
    for test in left_out:
        path, name = test.replace("$api", "tests/test_api.py").split("::")
        assert f"def {name}(" in (REPO / path).read_text(), test
