"""The workflow's grid is the command line's default grid plus Cranfield's grade mapping."""

from __future__ import annotations

from pathlib import Path

import yaml

from irscore.engine.ranking.conventions import DEFAULT_GRID, conventions_from_config

REPO = Path(__file__).resolve().parents[1]


def test_config_grid_is_the_default_grid_plus_cleverdon():
    config = yaml.safe_load((REPO / "config.yaml").read_text())["conventions"]
    extra = {name: changes for name, changes in config.items() if name not in DEFAULT_GRID}
    assert extra == {"grades_cleverdon": {"grades": "cranfield_cleverdon"}}
    assert {name: config[name] or {} for name in DEFAULT_GRID} == DEFAULT_GRID


def test_every_default_convention_changes_one_decision():
    for convention in conventions_from_config(DEFAULT_GRID):
        changes = convention.changes()
        if convention.name == "reference":
            assert changes == {}
        elif convention.name == "mistake_topics_from_run":
            assert changes == {"topics": "all_qrels", "mistake": "topics_from_run"}
        else:
            assert len(changes) == 1, (convention.name, changes)
