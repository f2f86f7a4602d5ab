"""The strict TREC readers: every kind of malformed line, valid oddities, and properties.

A bad line must raise `TrecFormatError` naming the file and the line number and
quoting the line (conventions.md, "File formats"). Valid files take a fast
pandas path; `_slow_columns` (line by line) is the authority, and the two must
agree.
"""

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore.engine.reading import trec
from irscore.engine.reading.trec import (
    QRELS_COLUMNS,
    RUN_COLUMNS,
    TrecFormatError,
    read_qrels,
    read_run,
    write_run,
)


def write(tmp_path, text, name="file.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def check_error(info, path, line_no, line):
    err = info.value
    assert err.path == str(path)
    assert err.line_no == line_no
    assert err.line == line
    message = str(err)
    assert f"{path}:{line_no}:" in message
    assert repr(line) in message  # the line is quoted
    return err


def read_ranked(path):
    """A run read for a convention that uses its ranks (tie-break `rank`), which must be
    whole numbers; trec_eval and every other convention never read them."""
    records = trec.read_run_records(path)
    records.check_ranks()
    return records


def read_slowly(reader, path):
    """The same reader with the fast path switched off: every line goes through _slow_columns."""
    with mock.patch.object(trec, "fast_columns", return_value=None):
        return reader(path)


# ---------------------------------------------------------------------------------------
# malformed qrels lines


QRELS_ERRORS = [
    # (id, text, bad line number, bad line, words expected in the problem)
    ("too_few", "1 0 a 1\n1 0 b\n", 2, "1 0 b", "expected 4 columns, found 3"),
    ("too_many", "1 0 a 1\n1 0 b 1 x\n", 2, "1 0 b 1 x", "expected 4 columns, found 5"),
    ("one_column", "1\n", 1, "1", "expected 4 columns, found 1"),
    ("grade_fraction", "1 0 a 1\n1 0 b 1.5\n", 2, "1 0 b 1.5", "grade '1.5'"),
    ("grade_word", "1 0 a x\n", 1, "1 0 a x", "grade 'x'"),
    ("grade_float_int", "1 0 a 1.0\n", 1, "1 0 a 1.0", "grade '1.0'"),
    ("grade_underscore", "1 0 a 1_0\n", 1, "1 0 a 1_0", "grade '1_0'"),
    (
        "after_blank_and_comments",
        "# header\n\n1 0 a 1\n   \n  # indented comment\n1 0 b x\n",
        6,
        "1 0 b x",
        "grade 'x'",
    ),
    ("crlf", "1 0 a 1\r\n1 0 b\r\n", 2, "1 0 b", "expected 4 columns"),
]


@pytest.mark.parametrize(
    ("text", "line_no", "line", "problem"),
    [case[1:] for case in QRELS_ERRORS],
    ids=[case[0] for case in QRELS_ERRORS],
)
def test_qrels_errors(tmp_path, text, line_no, line, problem):
    path = write(tmp_path, text)
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    err = check_error(info, path, line_no, line)
    assert problem in err.problem


def test_qrels_duplicate_judgment(tmp_path):
    text = "# c\n1 0 a 1\n\n1 0 b 0\n2 0 a 1\n1 0 a 0\n"
    for name, body in (("with_comment", text), ("fast", text.replace("# c\n", "\n"))):
        path = write(tmp_path, body, name)
        with pytest.raises(TrecFormatError) as info:
            read_qrels(path)
        err = check_error(info, path, 6, "1 0 a 0")  # the second judgment of (1, a)
        assert "a" in err.problem and "topic 1" in err.problem


# ---------------------------------------------------------------------------------------
# malformed run lines


RUN_ERRORS = [
    ("too_few", "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4\n", 2, "1 Q0 b 2 0.4", "expected 6 columns, found 5"),
    ("score_word", "1 Q0 a 1 0.5 t\n1 Q0 b 2 abc t\n", 2, "1 Q0 b 2 abc t", "score 'abc'"),
    ("score_nan", "1 Q0 a 1 nan t\n", 1, "1 Q0 a 1 nan t", "score 'nan'"),
    ("score_NaN", "1 Q0 a 1 NaN t\n", 1, "1 Q0 a 1 NaN t", "score 'NaN'"),
    ("score_inf", "1 Q0 a 1 inf t\n", 1, "1 Q0 a 1 inf t", "score 'inf'"),
    ("score_minus_inf", "\n1 Q0 a 1 -inf t\n", 2, "1 Q0 a 1 -inf t", "score '-inf'"),
    ("score_infinity", "1 Q0 a 1 Infinity t\n", 1, "1 Q0 a 1 Infinity t", "score 'Infinity'"),
    ("score_overflow", "1 Q0 a 1 1e999 t\n", 1, "1 Q0 a 1 1e999 t", "score '1e999'"),
    ("score_hex", "1 Q0 a 1 0x10 t\n", 1, "1 Q0 a 1 0x10 t", "score '0x10'"),
    ("rank_fraction", "1 Q0 a 1.5 0.5 t\n", 1, "1 Q0 a 1.5 0.5 t", "rank '1.5'"),
    ("rank_word", "1 Q0 a first 0.5 t\n", 1, "1 Q0 a first 0.5 t", "rank 'first'"),
    # Underscores elsewhere on the line (tag, docno) must not hide one inside a number.
    (
        "score_underscore",
        "1 Q0 d_1 1 0.5 my_tag\n1 Q0 d_2 2 1_5 my_tag\n",
        2,
        "1 Q0 d_2 2 1_5 my_tag",
        "score '1_5'",
    ),
    ("rank_underscore", "1 Q0 d_1 1_0 0.5 my_tag\n", 1, "1 Q0 d_1 1_0 0.5 my_tag", "rank '1_0'"),
    (
        "tab_score_underscore",
        "1\tQ0\ta_b\t1\t2_5\tt_1\n",
        1,
        "1\tQ0\ta_b\t1\t2_5\tt_1",
        "score '2_5'",
    ),
    (
        "after_comments",
        "# run\n1 Q0 a 1 0.5 t\n#\n\n1 Q0 b 2 0,4 t\n",
        5,
        "1 Q0 b 2 0,4 t",
        "score '0,4'",
    ),
]


@pytest.mark.parametrize(
    ("text", "line_no", "line", "problem"),
    [case[1:] for case in RUN_ERRORS],
    ids=[case[0] for case in RUN_ERRORS],
)
def test_run_errors(tmp_path, text, line_no, line, problem):
    path = write(tmp_path, text)
    with pytest.raises(TrecFormatError) as info:
        read_ranked(path)
    err = check_error(info, path, line_no, line)
    assert problem in err.problem


@pytest.mark.parametrize("rank", ["-", "first", "1.5", "1_0", "nan"])
def test_rank_not_a_number_read_as_trec_eval_reads_it(tmp_path, rank):
    """trec_eval never reads the rank: any text is accepted (as 0) unless tie-break `rank`
    asks for the ranks, and that refusal names the first such line."""
    path = write(tmp_path, f"1 Q0 a 1 0.5 t\n1 Q0 b {rank} 0.4 t\n1 Q0 c {rank} 0.3 t\n")
    run = both_paths(read_run, path)
    assert run["rank"].tolist() == [1, 0, 0]
    assert trec.read_run_records(path).unread_rank == (2, f"1 Q0 b {rank} 0.4 t")
    with pytest.raises(TrecFormatError) as info:
        read_ranked(path)
    check_error(info, path, 2, f"1 Q0 b {rank} 0.4 t")


def test_rank_of_a_ranked_list_must_be_a_number(tmp_path):
    """Without scores the ranks are the order: a CSV rank that is no number is an error."""
    path = write(tmp_path, "qid,docno,rank\n1,a,1\n1,b,x\n")
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    check_error(info, path, 3, "1,b,x")


def test_fields_after_the_tag_ignored(tmp_path):
    """trec_eval ignores what follows the run tag (its results.trunc has 'more junk at end
    of lines'); on every line, the first too, with tabs or spaces."""
    path = write(tmp_path, "1 Q0 a 1 0.5 t more junk\n1\tQ0\tb\t2\t0.4\tt\tx\n1 Q0 c 3 0.3 t\n")
    run = both_paths(read_run, path)
    assert run["docno"].tolist() == ["a", "b", "c"] and run["tag"].tolist() == ["t"] * 3


def test_run_error_on_non_finite_says_finite(tmp_path):
    path = write(tmp_path, "1 Q0 a 1 1e999 t\n")
    with pytest.raises(TrecFormatError, match="finite"):
        read_run(path)


# ---------------------------------------------------------------------------------------
# invalid UTF-8


@pytest.mark.parametrize(
    ("reader", "text", "line_no"),
    [
        (read_qrels, b"1 0 a 1\n1 0 b\xff 1\n", 2),
        (read_run, b"1 Q0 a 1 1 t\n\n1 Q0 b\xff 2 1 t\n", 3),
        (read_run, b"\xc3\n", 1),
    ],
    ids=["qrels", "run", "truncated_sequence"],
)
def test_invalid_utf8_names_file_and_line(tmp_path, reader, text, line_no):
    path = write(tmp_path, text)
    with pytest.raises(TrecFormatError) as info:
        reader(path)
    assert info.value.path == str(path)
    assert info.value.line_no == line_no
    assert f"{path}:{line_no}:" in str(info.value)
    assert "UTF-8" in info.value.problem


def test_invalid_utf8_quotes_the_line(tmp_path):
    path = write(tmp_path, b"1 0 a 1\n1 0 b\xff 1\n")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert info.value.line  # e.g. '1 0 b\ufffd 1' or '1 0 b\\xff 1'
    assert "1 0 b" in str(info.value)


# ---------------------------------------------------------------------------------------
# integers out of range and non-ASCII digits


def test_rank_out_of_range_is_a_format_error(tmp_path):
    line = "1 Q0 b 99999999999999999999 0.5 t"
    path = write(tmp_path, f"1 Q0 a 1 0.9 t\n{line}\n")
    with pytest.raises(TrecFormatError) as info:
        read_ranked(path)
    err = check_error(info, path, 2, line)
    assert "rank" in err.problem


def test_grade_out_of_range_is_a_format_error(tmp_path):
    line = "1 0 b 99999999999999999999"
    path = write(tmp_path, f"1 0 a 1\n{line}\n")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    check_error(info, path, 2, line)


def test_grade_beyond_2_53_same_on_both_paths(tmp_path):
    path = write(tmp_path, f"1 0 a {2**53 + 1}\n")
    assert outcome(read_qrels, path) == outcome(lambda p: read_slowly(read_qrels, p), path)


@pytest.mark.parametrize(
    ("reader", "line"),
    [
        (read_qrels, "1 0 a \u0661"),  # ARABIC-INDIC DIGIT ONE as the grade
        (read_qrels, "1 0 a \uff12"),  # FULLWIDTH DIGIT TWO as the grade
        (read_run, "1 Q0 a 1 \u0661.5 t"),  # score
        (read_ranked, "1 Q0 a \u0661 0.5 t"),  # rank
    ],
    ids=["grade_arabic", "grade_fullwidth", "score_arabic", "rank_arabic"],
)
def test_non_ascii_digits_rejected(tmp_path, reader, line):
    # Python's int() and float() accept them; the fast path must not
    for text in (line + "\n", "# comment\n" + line + "\n"):
        path = write(tmp_path, text)
        with pytest.raises(TrecFormatError) as info:
            reader(path)
        check_error(info, path, text.count("\n"), line)


@pytest.mark.parametrize(
    "text",
    ["\ufeff1 0 a 1\n", "1 0 a 1\r1 0 b 1\n", "1 0 a\x0bb 1\n"],
    ids=["bom", "lone_cr", "vertical_tab"],
)
def test_fast_and_slow_paths_agree_on_odd_bytes(tmp_path, text):
    path = write(tmp_path, text)
    assert outcome(read_qrels, path) == outcome(lambda p: read_slowly(read_qrels, p), path)


@pytest.mark.parametrize("char", ["\xa0", "\x85", "\u2003"])
def test_non_ascii_whitespace_is_part_of_a_field(tmp_path, char):
    # trec_eval splits on C isspace() (ASCII only); U+00A0 etc. stay inside the docno
    # (U+001C, whitespace to Python, is a control character: an error, test_input_faults)
    path = write(tmp_path, f"1 0 a{char}b 1\n")
    qrels = both_paths(read_qrels, path)
    assert qrels["docno"].tolist() == [f"a{char}b"]


# ---------------------------------------------------------------------------------------
# valid oddities


def both_paths(reader, path):
    """Read with and without the fast path; the two must give the same values."""
    fast, slow = reader(path), read_slowly(reader, path)
    assert outcome(lambda _p: fast, path) == outcome(lambda _p: slow, path)
    return fast


def test_blank_and_comment_lines_skipped(tmp_path):
    text = "# a comment\n\n1 0 a 1\n   \n\t# another\n1 0 b 0\n"
    qrels = both_paths(read_qrels, write(tmp_path, text))
    assert list(qrels.columns) == QRELS_COLUMNS
    assert qrels.to_dict("list") == {"topic": ["1", "1"], "docno": ["a", "b"], "grade": [1, 0]}
    run = both_paths(read_run, write(tmp_path, "#\n1 Q0 a 1 0.5 t\n\n", "run"))
    assert run.to_dict("list") == {
        "topic": ["1"],
        "docno": ["a"],
        "rank": [1],
        "score": [0.5],
        "tag": ["t"],
    }


def test_tabs_multiple_and_trailing_spaces(tmp_path):
    text = "1\t0\ta\t1  \n  1   0  b   2\t\n1 0 c -1 \r\n"
    qrels = both_paths(read_qrels, write(tmp_path, text))
    assert qrels.to_dict("list") == {
        "topic": ["1", "1", "1"],
        "docno": ["a", "b", "c"],
        "grade": [1, 2, -1],
    }
    assert qrels["grade"].dtype == np.int64
    run = both_paths(read_run, write(tmp_path, "7\tQ0  d\t3   0.25 tag \t\n", "run"))
    assert run.to_dict("list") == {
        "topic": ["7"],
        "docno": ["d"],
        "rank": [3],
        "score": [0.25],
        "tag": ["tag"],
    }


STRINGY = ["NA", "nan", "null", "001", "None", "N/A", "#N/A", "TRUE", "-nan", "1.0", "0x1"]


@pytest.mark.parametrize("comment", ["", "# force the line-by-line reader\n"])
def test_docnos_and_topics_stay_strings(tmp_path, comment):
    # a topic starting with "#" would make a comment line, so "#N/A" is only a docno here
    topics = [d if not d.startswith("#") else "t" for d in STRINGY]
    qrels_text = comment + "".join(f"{t} 0 {d} 1\n" for t, d in zip(topics, STRINGY, strict=True))
    qrels = read_qrels(write(tmp_path, qrels_text))
    assert qrels["topic"].tolist() == topics
    assert qrels["docno"].tolist() == STRINGY
    assert all(type(d) is str for d in qrels["docno"])
    run_text = comment + "".join(
        f"{t} Q0 {d} 1 1.0 {d}\n" for t, d in zip(topics, STRINGY, strict=True)
    )
    run = read_run(write(tmp_path, run_text, "run"))
    assert run["topic"].tolist() == topics
    assert run["docno"].tolist() == STRINGY
    assert run["tag"].tolist() == STRINGY
    assert all(type(d) is str for d in run["docno"])


def test_exponent_notation_scores(tmp_path):
    text = "1 Q0 a 1 1e-3 t\n1 Q0 b 2 -2.5E+2 t\n1 Q0 c 3 .5 t\n1 Q0 d 4 5. t\n1 Q0 e 5 +3E2 t\n"
    run = both_paths(read_run, write(tmp_path, text))
    assert run["score"].tolist() == [0.001, -250.0, 0.5, 5.0, 300.0]
    assert run["score"].dtype == np.float64
    assert run["rank"].dtype == np.int64


@pytest.mark.parametrize("text", ["", "\n\n   \n", "# only a comment\n"])
def test_empty_file_gives_empty_frame(tmp_path, text):
    qrels = read_qrels(write(tmp_path, text))
    assert list(qrels.columns) == QRELS_COLUMNS
    assert len(qrels) == 0
    run = read_run(write(tmp_path, text, "run"))
    assert list(run.columns) == RUN_COLUMNS
    assert len(run) == 0


def test_typical_file_takes_the_fast_path(tmp_path):
    typical = write(tmp_path, "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.25 t\n")
    commented = write(tmp_path, "# c\n1 Q0 a 1 0.5 t\n#\n\n1 Q0 b 2 0.25 t\n", "commented")
    marco = write(tmp_path, "1 Q0 msmarco_doc_00_4736 1 0.5 run_2\n", "marco")
    odd = write(tmp_path, "1 Q0 a 1 0.5 t\n1  Q0 b 2 0.25 t\n", "odd")
    with mock.patch.object(trec, "slow_columns", wraps=trec.slow_columns) as slow:
        read_run(typical)
        assert slow.call_count == 0  # so the property tests below compare two real paths
        # comment lines, blank lines, digits and underscores in docnos and tags stay fast
        assert read_run(commented)["docno"].tolist() == ["a", "b"]
        assert read_run(marco)["docno"].tolist() == ["msmarco_doc_00_4736"]
        assert slow.call_count == 0
        read_run(odd)  # a double space: the careful reader
        assert slow.call_count == 1


# ---------------------------------------------------------------------------------------
# properties


FIRST = "abcXYZ019.-/:\"'éß中"
REST = FIRST + "#_"
token = st.tuples(st.sampled_from(FIRST), st.text(alphabet=REST, min_size=0, max_size=6)).map(
    "".join
)
sep = st.sampled_from([" ", "\t", "  ", " \t "])
pad = st.sampled_from(["", " ", "\t"])
end = st.sampled_from(["\n", "\r\n"])
finite = st.floats(allow_nan=False, allow_infinity=False)
grade_text = st.integers(-3, 1000).flatmap(
    lambda g: st.sampled_from([str(g), f"{g:03d}"] + ([f"+{g}"] if g >= 0 else []))
)
score_text = st.one_of(
    finite.map(repr),
    finite.map(lambda x: f"{x:e}"),
    finite.map(lambda x: f"{x:.4g}"),
    finite.map(lambda x: f"{x:.3f}"),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from([".5", "5.", "-0.0", "+.25e-3", "1E+2"]),
)
rank_text = st.integers(-5, 10**6).map(str)


@st.composite
def trec_text(draw, run):
    # plain files (single spaces, bare newlines) take the fastest path; others vary spacing
    plain = draw(st.booleans())
    space = st.just(" ") if plain else sep
    margin = st.just("") if plain else pad
    newline = st.just("\n") if plain else end
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(margin) + draw(newline))  # a blank (or whitespace-only) line
            continue
        if run:
            fields = [draw(token), "Q0", draw(token), draw(rank_text), draw(score_text)]
            fields.append(draw(token))
        else:
            fields = [draw(token), "0", draw(token), draw(grade_text)]
        separators = [draw(space) for _ in fields[1:]]
        body = fields[0] + "".join(s + f for s, f in zip(separators, fields[1:], strict=True))
        lines.append(draw(margin) + body + draw(margin) + draw(newline))
    text = "".join(lines)
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")  # no newline at the end of the file
    return text


def outcome(reader, path):
    """A frame as plain lists, or the (line, problem) of the error."""
    try:
        frame = reader(path)
    except TrecFormatError as err:
        return ("error", err.line_no, err.problem, err.line)
    return (
        "ok",
        list(frame.columns),
        {name: [(type(v).__name__, repr(v)) for v in frame[name]] for name in frame.columns},
        {name: str(frame[name].dtype) for name in frame.columns if name in ("grade", "rank")},
    )


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(text=trec_text(run=False))
def test_property_qrels_fast_and_slow_agree(tmp_path_factory, text):
    path = write(tmp_path_factory.mktemp("qrels"), text)
    fast = outcome(read_qrels, path)
    slow = outcome(lambda p: read_slowly(read_qrels, p), path)
    assert fast == slow
    assert outcome(read_qrels, path) == slow  # deterministic


@PROPERTY
@given(text=trec_text(run=True))
def test_property_run_fast_and_slow_agree(tmp_path_factory, text):
    path = write(tmp_path_factory.mktemp("run"), text)
    fast = outcome(read_run, path)
    slow = outcome(lambda p: read_slowly(read_run, p), path)
    assert fast == slow


@PROPERTY
@given(
    rows=st.lists(
        st.tuples(token, token, st.integers(-(2**31), 2**31), finite, token),
        max_size=15,
    )
)
def test_property_write_run_read_run_round_trip(tmp_path_factory, rows):
    run = pd.DataFrame(rows, columns=["topic", "docno", "rank", "score", "tag"])
    path = tmp_path_factory.mktemp("rt") / "run.txt"
    write_run(path, run)
    for back in (read_run(path), read_slowly(read_run, path)):
        assert back["topic"].tolist() == run["topic"].tolist()
        assert back["docno"].tolist() == run["docno"].tolist()
        assert back["rank"].tolist() == run["rank"].tolist()
        assert back["tag"].tolist() == run["tag"].tolist()
        assert [repr(s) for s in back["score"]] == [repr(float(s)) for s in run["score"]]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("1 Q0 d 1 1_5 t", "score '1_5'"),
        ("1 Q0 d 12_34 0.5 t", "rank '12_34'"),
        ("1 Q0 d_1 1 0.5 textbook_bim", None),  # digit before, letter after
        ("1 Q0 d 1 0.5 run_2", None),  # letter before, digit after
        ("1 Q0 msmarco_doc_00_4736 1 0.5 t_", None),
        ("_1 Q0 d 1 0.5 t", None),
    ],
)
def test_underscore_between_digits_only_refused_in_numbers(tmp_path, line, problem):
    # Python's float() and int() accept "1_5"; Arrow and the careful reader do not.
    path = write(tmp_path, line + "\n")
    if problem is None:
        assert both_paths(read_run, path)["tag"].tolist() == [line.split()[-1]]
        return
    with pytest.raises(TrecFormatError) as info:
        read_ranked(path)
    assert problem in check_error(info, path, 1, line).problem
