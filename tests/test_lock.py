"""requirements.lock and pyproject.toml agree: every range of the package (core, each extra,
dev) holds a locked version inside it, the lock is whole (every requirement of a locked
package is locked too, so the Makefile's `pip install --no-deps -r` misses nothing), the
suite runs on the locked versions, and the Makefile installs from the lock."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements.lock"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def locked(text: str) -> dict[str, tuple[str, Marker | None]]:
    """{name: (version, marker)} of the lock's `name==version [; marker]` lines."""
    pins = {}
    for line in text.splitlines():
        if not line or line[0] in "# -":
            continue
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"requirements.lock: {line!r} is not an exact pin"
        pins[canonicalize_name(requirement.name)] = (spec.version, requirement.marker)
    return pins


def declared() -> list[tuple[str, Requirement]]:
    """(where, requirement) of every requirement of pyproject.toml but irscore's own extras."""
    found = [("dependencies", Requirement(text)) for text in PROJECT["dependencies"]]
    for extra, texts in PROJECT["optional-dependencies"].items():
        found += [(f"[{extra}]", Requirement(text)) for text in texts]
    return [(where, r) for where, r in found if canonicalize_name(r.name) != "irscore"]


def disagreements(lock_text: str) -> list[str]:
    """Each requirement of pyproject.toml the lock leaves out or pins outside its range."""
    pins = locked(lock_text)
    wrong = []
    for where, requirement in declared():
        name = canonicalize_name(requirement.name)
        if name not in pins:
            wrong.append(f"{where} {requirement}: not in requirements.lock")
        elif not requirement.specifier.contains(pins[name][0], prereleases=True):
            wrong.append(f"{where} {requirement}: requirements.lock has {pins[name][0]}")
    return wrong


def test_the_lock_pins_every_requirement_inside_its_range():
    assert disagreements(LOCK.read_text()) == []
    # and the check sees a disagreement: a range the lock's version is outside of, a
    # requirement the lock lacks
    text = LOCK.read_text()
    moved = re.sub(r"^pandas==\S+", "pandas==2.1.4", text, flags=re.M)
    assert disagreements(moved) == ["dependencies pandas>=2.2.2: requirements.lock has 2.1.4"]
    dropped = re.sub(r"^starlette==.*\n(    #.*\n)*", "", text, flags=re.M)
    assert disagreements(dropped) == ["[web] starlette>=1.10.0: not in requirements.lock"]


def test_the_lock_says_how_it_was_made_from_pyproject():
    head = LOCK.read_text().splitlines()[:2]
    made = "uv pip compile pyproject.toml --all-extras --universal -o requirements.lock"
    assert head[1].split() == ["#", *made.split()]


def _applies(marker: Marker | None, extras: set[str] = frozenset()) -> bool:
    if marker is None:
        return True
    return any(marker.evaluate({"extra": extra}) for extra in (extras or {""}))


def test_the_lock_is_whole_and_is_what_the_suite_runs_on():
    """Every locked package that applies here is installed at its locked version, and each
    of its requirements (its extras' too, as the lock names them) is locked."""
    pins = locked(LOCK.read_text())
    extras_of = {  # the extras the lock installs of each package ("snakemake[reports]")
        canonicalize_name(r.name): set(r.extras)
        for line in LOCK.read_text().splitlines()
        if line and line[0] not in "# -"
        for r in [Requirement(line)]
    }
    for name, (version, marker) in pins.items():
        if not _applies(marker):
            continue
        assert metadata.version(name) == version, f"{name}: .venv has {metadata.version(name)}"
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if _applies(requirement.marker, extras_of[name]):
                wanted = canonicalize_name(requirement.name)
                assert wanted in pins, f"{name} needs {requirement}, which is not locked"


def test_all_is_every_extra_and_dev_has_all():
    optional = PROJECT["optional-dependencies"]
    assert optional["all"] == ["irscore[workflow,report,stats,web]"]
    assert set(optional) == {"report", "stats", "workflow", "web", "all", "dev"}
    assert "irscore[all]" in optional["dev"]


@pytest.mark.parametrize("target", ["results", "test"])
def test_the_makefile_installs_the_lock_then_irscore_without_resolving(tmp_path, target):
    for name in ("Makefile", "pyproject.toml", "requirements.lock"):
        shutil.copy(REPO / name, tmp_path / name)
    plan = subprocess.run(
        ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    installs = [line for line in plan if " install " in line and "--upgrade pip" not in line]
    assert installs == [
        ".venv/bin/pip install --quiet --no-deps -r requirements.lock",
        ".venv/bin/pip install --quiet --no-deps -e .",
    ]
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / ".installed").touch()
    os.utime(tmp_path / "pyproject.toml", (1, 1))
    for stamp, lock, installs_again in ((3, 2, False), (2, 3, True)):  # a newer lock
        os.utime(tmp_path / ".venv" / ".installed", (stamp, stamp))
        os.utime(tmp_path / "requirements.lock", (lock, lock))
        again = subprocess.run(
            ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout
        assert ("-r requirements.lock" in again) == installs_again
