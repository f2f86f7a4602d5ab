"""trec_eval's text layout built as bytes equals the same lines formatted one by one.

The byte matrices print `%6.4f` from integer arithmetic away from rounding ties;
these tests draw the values where that could go wrong (ties such as 1/32,
values just below 10, negatives, -0.0, NaN) and compare with Python's correctly
rounded formatting, line by line.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore.engine.output import trec_eval_text
from irscore.engine.output.trec_eval_text import lines


def _plain(values, topics, means, runid, printed=None):
    """The text, one f-string a line, as trec_eval's printf writes it."""
    out = []
    for i, topic in enumerate(topics):
        if printed is not None and topic not in printed:
            continue
        for name, column in values.items():
            value = column[i]
            if name.startswith("num_"):
                text = str(int(value))
            else:
                text = "  -nan" if math.isnan(value) else f"{value:6.4f}"
            out.append(f"{name:<22s}\t{topic}\t{text}\n")
    if runid is not None:
        out.append(f"{'runid':<22s}\tall\t{runid}\n")
    for name, mean in means.items():
        text = str(int(mean)) if name.startswith("num_") else f"{mean:6.4f}"
        out.append(f"{name:<22s}\tall\t{text}\n")
    return "".join(out)


TRICKY = [
    0.03125,
    0.09375,
    0.00005,
    0.00015,
    0.99995,
    9.99994,
    9.99995,
    9.999949999999,
    10.0,
    123.45675,
    -0.0,
    -1e-9,
    -0.25,
    0.0,
    1.0,
    float("nan"),
    1e7,
    0.5,
    2 / 3,
]
floats = st.one_of(
    st.sampled_from(TRICKY),
    st.floats(0, 1),
    st.integers(0, 2**20).map(lambda n: n / 2**14),  # exact binary fractions: ties
    st.floats(-5, 50, allow_nan=False),
)
counts = st.integers(0, 10**12).map(float)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text("ab1é\u4e2d-_.", min_size=1, max_size=9), min_size=1, max_size=40, unique=True
    ),
    st.data(),
)
def test_lines_equal_lines_formatted_one_by_one(topics, data):
    n = len(topics)
    values = {
        "map": np.array(data.draw(st.lists(floats, min_size=n, max_size=n))),
        "num_ret": np.array(data.draw(st.lists(counts, min_size=n, max_size=n))),
        "P_5": np.array(data.draw(st.lists(floats, min_size=n, max_size=n))),
    }
    means = {"map": 0.25, "num_ret": 7.0}
    printed = set(data.draw(st.lists(st.sampled_from(topics), max_size=n)))
    # blocks of a few topics, so that block edges fall everywhere
    trec_eval_text.BLOCK_BYTES = data.draw(st.sampled_from([1, 200, 1 << 23]))
    try:
        got = b"".join(lines(values, np.array(topics, dtype=object), means, "r", True, True))
        assert got.decode() == _plain(values, topics, means, "r")
        some = b"".join(
            lines(
                values,
                np.array(topics, dtype=object),
                means,
                None,
                True,
                False,
                printed_topics=printed,
            )
        )
        assert some.decode() == _plain(values, topics, {}, None, printed)
    finally:
        trec_eval_text.BLOCK_BYTES = 1 << 23


def test_rounding_ties_print_as_printf_rounds_them():
    # 1/32 = 0.03125 is exactly representable, a tie at 4 places: round half to even
    # gives 0.0312; 3/32 = 0.09375 gives 0.0938. 9.99995 is 9.99995000000000011... in
    # binary, above the tie: 10.0000, 7 bytes wide; 9.99994 stays 9.9999. 0.00005 is
    # 0.0000500000000000000024 in binary: 0.0001. -0.0 keeps its sign, as printf does.
    values = {"map": np.array([0.03125, 0.09375, 9.99995, 9.99994, -0.0, 0.00005])}
    topics = np.array(list("abcdef"), dtype=object)
    text = b"".join(lines(values, topics, {}, None, True, False)).decode().splitlines()
    assert [line.split("\t")[2] for line in text] == [
        "0.0312",
        "0.0938",
        "10.0000",
        "9.9999",
        "-0.0000",
        "0.0001",
    ]


def test_c_prints_no_line_for_a_judged_topic_the_run_lacks_under_mean_only():
    """Topics a, b, c scored under -c, b judged but absent from the run: trec_eval 9
    (`mean_only`, b counted in the `all` means only) prints lines for a and c; every
    other `missing_topics` convention prints all three, and so does any convention when
    no topic is missing (None: every topic's)."""
    from irscore.engine.ranking.conventions import CHOICES, Convention

    topics, without_run = ["a", "b", "c"], ["b"]
    nine = Convention(missing_topics="mean_only")
    assert trec_eval_text.topics_printed(nine, topics, without_run) == {"a", "c"}
    assert trec_eval_text.topics_printed(nine, topics, []) is None
    others = [m for m in CHOICES["missing_topics"] if m != "mean_only"]
    assert others  # trec_eval 10's "evaluated"
    for missing in others:
        other = Convention(missing_topics=missing)
        assert trec_eval_text.topics_printed(other, topics, without_run) is None
    # as printed: P_5 of a, b, c = 1/5, 0 (b has no results), 3/5; b's line left out
    values = {"P_5": np.array([1 / 5, 0.0, 3 / 5])}
    printed = trec_eval_text.topics_printed(nine, topics, without_run)
    text = b"".join(lines(values, np.array(topics), {}, None, True, False, printed))
    assert text == b"P_5                   \ta\t0.2000\nP_5                   \tc\t0.6000\n"
