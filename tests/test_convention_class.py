"""`Convention` is a plain frozen class (no dataclass, for the command line's start-up):
it must behave as the frozen dataclass it replaced did, for every caller and pickle."""

from __future__ import annotations

import copy
import pickle

import pytest

from irscore.engine.ranking.conventions import FIELDS, Convention, ConventionError


def test_fields_are_the_signatures_in_order():
    c = Convention()
    assert FIELDS[:3] == ("name", "description", "tie_break")
    assert repr(c).startswith("Convention(name='reference', description='trec_eval 9.0.x")
    assert repr(c).count("=") == len(FIELDS) == 17
    assert Convention("x", "y", "docno_asc").tie_break == "docno_asc"  # positional, as before


def test_equal_and_hashed_by_every_field():
    assert Convention() == Convention() and hash(Convention()) == hash(Convention())
    assert Convention(depth=10) != Convention()
    assert Convention(name="other") != Convention()  # the name is a field like the others
    assert len({Convention(), Convention(), Convention(gain="exponential")}) == 2
    assert Convention() != tuple(getattr(Convention(), f) for f in FIELDS)


def test_frozen():
    c = Convention()
    with pytest.raises(AttributeError, match="frozen"):
        c.depth = 5
    with pytest.raises(AttributeError, match="frozen"):
        del c.name
    with pytest.raises(AttributeError):
        c.extra = 1  # no such field, no __dict__ to hold it


def test_replace_checks_the_new_convention():
    c = Convention(depth=100)
    changed = c.replace(tie_break="expected")
    assert (changed.tie_break, changed.ties, changed.depth) == ("docno_desc", "expected", 100)
    assert c.tie_break == "docno_desc" and c.ties == "ordered"  # the original is untouched
    with pytest.raises(ConventionError, match="rel_level must be 0 or more"):
        c.replace(rel_level=-1)
    with pytest.raises(TypeError, match="no field"):
        c.replace(depht=5)
    with pytest.raises(ConventionError, match="unknown field"):
        Convention.from_changes("typo", {"depht": 5})


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickled_and_copied_whole(protocol):
    """The worker processes receive conventions pickled."""
    c = Convention.from_changes("judged_only", {"unjudged": "removed", "depth": 5})
    back = pickle.loads(pickle.dumps(c, protocol))
    assert back == c and back.judged_only and back.depth == 5
    assert copy.copy(c) == c == copy.deepcopy(c)
