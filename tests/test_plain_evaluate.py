"""The plain-Python path of `irscore evaluate` (`irscore.engine.small.plain_evaluate`) for small
TREC files: the same bytes as the engine, or no answer at all.

A hand-worked topic checks its measures' arithmetic; generated inputs (ties that
only float32 makes, unjudged and negatively graded documents, topics missing on
either side, lines in any order, tabs, flags -q -c -n -M -l -N) check that its text
and warnings are the engine's byte for byte; every input it must not serve goes to
the engine, which then says what is wrong; and it runs without numpy or Arrow.
"""

from __future__ import annotations

import gzip
import math
import subprocess
import sys

import pytest
from cli_calls import called as run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore.engine.small import plain_evaluate
from irscore.engine.system import forked


@pytest.fixture
def served(monkeypatch):
    """The list of what each call of the plain path returned (None: the engine scored)."""
    answers = []
    real = plain_evaluate.trec_eval_text

    def spy(*args, **kwargs):
        answers.append(real(*args, **kwargs))
        return answers[-1]

    monkeypatch.setattr(plain_evaluate, "trec_eval_text", spy)
    return answers


def engine_cli(monkeypatch, *argv: str) -> tuple[int, str, str]:
    """`run_cli` with the plain path switched off: the engine scores."""
    with monkeypatch.context() as m:
        m.setattr(plain_evaluate, "trec_eval_text", lambda *args, **kwargs: None)
        return run_cli(*argv)


def values(text: str) -> dict[tuple[str, str], str]:
    """{(measure, topic): printed value} of trec_eval's text."""
    return {(m.strip(), t): v for m, t, v in (line.split("\t") for line in text.splitlines())}


QRELS = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n1 0 d4 -1\n1 0 d5 1\n2 0 x 0\n"
# d2 and d1 tie at 0.7 and trec_eval puts the larger docno first: d3 d9 d2 d1 d4
RUN = "1 Q0 d1 3 0.7 tag\n1 Q0 d3 1 0.9 tag\n1 Q0 d9 2 0.8 tag\n1 Q0 d2 4 0.7 tag\n"
RUN += "1 Q0 d4 5 0.5 tag\n"


def test_one_topic_by_hand(tmp_path, served):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    status, out, err = run_cli("evaluate", "-q", "-m", "all_trec", str(qrels), str(run))
    assert status == 0 and served[0] is not None
    got = values(out)
    # grades in rank order: 1, not judged, 0, 2, -1 (unjudged); relevant: d1 d3 d5, R = 3
    assert got[("relstring", "1")] == "'1-02.'"
    assert got[("num_rel", "1")] == "3" and got[("num_rel_ret", "1")] == "2"
    assert got[("map", "1")] == f"{(1 / 1 + 2 / 4) / 3:6.4f}"  # relevant at ranks 1 and 4
    assert got[("P_5", "1")] == "0.4000"  # 2 of 5
    assert got[("recip_rank", "1")] == "1.0000"
    # bpref: d3 before any nonrelevant (1), d1 after d2, one of min(1, 3) nonrelevant (0)
    assert got[("bpref", "1")] == f"{(1 + 0) / 3:6.4f}"
    # infAP: rank 1 adds 1; rank 4 (j = 3) adds 1/4 + 3/4 * (1 + 1 + 0)/3 * (1 + e)/(2 + 2e)
    e = 0.00001
    inf_ap = (1 + 1 / 4 + 3 / 4 * (2 / 3) * ((1 + e) / (1 + 1 + 2 * e))) / 3
    assert got[("infAP", "1")] == f"{inf_ap:6.4f}"
    # nDCG: gains 1 at rank 1, 2 at rank 4; the ideal 2, 1, 1
    dcg = 1 / math.log2(2) + 2 / math.log2(5)
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert got[("ndcg", "1")] == f"{dcg / ideal:6.4f}"
    assert got[("ndcg_cut_5", "1")] == f"{dcg / ideal:6.4f}"
    # Rprec: 1 relevant (d3) in the first R = 3 ranks
    assert got[("Rprec", "1")] == f"{1 / 3:6.4f}"
    assert got[("num_nonrel_judged_ret", "1")] == "1"  # d2
    assert got[("runid", "all")] == "tag"
    assert ("map", "2") not in got  # topic 2 has no results: no line, not in the mean
    assert got[("map", "all")] == got[("map", "1")]
    assert "no results for 1 judged topic" in err


def test_c_averages_over_every_qrels_topic(tmp_path, served):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    status, out, _ = run_cli("evaluate", "-c", "-m", "all_trec", str(qrels), str(run))
    got = values(out)
    assert status == 0 and served[0] is not None
    assert got[("num_q", "all")] == "2"
    assert got[("map", "all")] == f"{(1 / 1 + 2 / 4) / 3 / 2:6.4f}"
    # gm_map: exp of the mean log, topic 2 adding log(0.00001)
    gm = math.exp((math.log((1 / 1 + 2 / 4) / 3) + math.log(0.00001)) / 2)
    assert got[("gm_map", "all")] == f"{gm:6.4f}"
    assert got[("num_rel", "all")] == "3"  # every grade above 0 of every topic


@st.composite
def inputs(draw):
    """(qrels text, run text) with ties, unjudged and negatively graded documents, topics
    on one side only, shuffled or grouped lines, spaces or tabs."""
    rng = draw(st.randoms(use_true_random=False))
    topics = draw(st.integers(1, 12))
    pool = draw(st.sampled_from([3, 20, 1000]))
    sep = draw(st.sampled_from([" ", "\t", "  "]))
    qrels, run = [], []
    for t in range(topics):
        qid = f"q{t:0{draw(st.integers(1, 3))}d}"
        docs = rng.sample(range(pool), min(pool, rng.randint(1, 40)))
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        extra = [d + pool for d in range(rng.randint(0, 5))]  # judged, never retrieved
        if rng.random() > 0.1:  # else: a topic only the run has
            qrels += [f"{qid} 0 D{d} {rng.choice([-1, 0, 0, 1, 1, 2, 3, 4])}" for d in judged]
            qrels += [f"{qid} 0 D{d} {rng.randint(0, 2)}" for d in extra]
        if rng.random() > 0.1:  # else: a topic only the qrels has
            for d in docs:
                score = rng.choice([0.5, 0.25, 1.0, 3.0, 0.1 + rng.choice([0, 1e-9, 2e-9])])
                run.append(f"{qid}{sep}Q0{sep}D{d}{sep}0{sep}{score!r}{sep}tag{t % 2}")
    if not qrels or not run:
        qrels.append("q0 0 D0 1")
        run.append("q0 Q0 D0 1 1.5 tagz")
    if draw(st.booleans()):
        rng.shuffle(run)
        rng.shuffle(qrels)
    return "\n".join(qrels) + "\n", "\n".join(run) + draw(st.sampled_from(["\n", ""]))


def evaluate_argv(folder, texts: tuple[str, str], flags: list[str]) -> list[str]:
    """`irscore evaluate FLAGS q r` for the (qrels, run) `texts` written into `folder`."""
    (folder / "q").write_text(texts[0])
    (folder / "r").write_text(texts[1])
    return ["evaluate", *" ".join(flags).split(), str(folder / "q"), str(folder / "r")]


# Each choice drawn on its own, so that pairs of them (-l 2 with every measure: the
# gains of grades below the level) come up in about a quarter of the examples.
FLAGS = st.builds(
    lambda measures, level, depth, others: measures + level + depth + sorted(others),
    st.sampled_from([[], ["-m all_trec"]]),
    st.sampled_from([[], ["-l 2"]]),
    st.sampled_from([[], ["-M 3"], ["-M 30"]]),
    st.sets(st.sampled_from(["-q", "-c", "-n", "-N 100"])),
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(inputs(), FLAGS)
def test_the_same_bytes_as_the_engine(tmp_path_factory, monkeypatch, texts, flags):
    argv = evaluate_argv(tmp_path_factory.mktemp("plain"), texts, flags)
    answers, real = [], plain_evaluate.trec_eval_text

    def spy(*args, **kwargs):
        answers.append(real(*args, **kwargs))
        return answers[-1]

    with monkeypatch.context() as m:
        m.setattr(plain_evaluate, "trec_eval_text", spy)
        plain = run_cli(*argv)
    assert plain == engine_cli(monkeypatch, *argv)
    # served, but for a topic judged only negatively (trec_eval's bug) or a document
    # retrieved twice for a topic below -M's depth (the engine's to judge: it scores)
    if plain[0] == 0:
        declined = _judged_only_negatively(texts[0]) or _retrieved_twice(texts[1])
        assert answers[0] is not None or declined


def _judged_only_negatively(qrels: str) -> bool:
    """True when a topic of the qrels has no grade of 0 or more."""
    best: dict[str, int] = {}
    for line in qrels.splitlines():
        topic, _, _, grade = line.split()
        best[topic] = max(best.get(topic, -1), int(grade))
    return min(best.values()) < 0


def _retrieved_twice(run: str) -> bool:
    """True when a run lists a document twice for a topic."""
    pairs = [tuple(line.split()[0:3:2]) for line in run.splitlines()]
    return len(set(pairs)) < len(pairs)


def test_several_runs_one_after_another(tmp_path, monkeypatch, served):
    qrels, first, second = tmp_path / "q", tmp_path / "r1", tmp_path / "r2"
    qrels.write_text(QRELS)
    first.write_text(RUN)
    second.write_text(RUN.replace("0.9", "0.1").replace("tag", "other"))
    argv = ["evaluate", "-q", str(qrels), str(first), str(second)]
    assert run_cli(*argv) == engine_cli(monkeypatch, *argv)
    assert served[0] is not None


REFUSED = {
    "a comment line": ("# a comment\n" + QRELS, RUN),
    "a blank line": (QRELS, RUN + "\n"),
    "CRLF line ends": (QRELS.replace("\n", "\r\n"), RUN),
    "a byte order mark": ("\ufeff" + QRELS, RUN),
    "a docno that is not ASCII": (QRELS, RUN.replace("d9", "dé")),
    "a field too many": (QRELS, RUN.replace("0.5 tag", "0.5 tag extra")),
    "a field too few": (QRELS.replace("1 0 d5 1", "1 d5 1"), RUN),
    "a document retrieved twice": (QRELS, RUN + "1 Q0 d4 6 0.4 tag\n"),
    "a document judged twice": (QRELS + "1 0 d1 0\n", RUN),
    "subtopics": (QRELS.replace("1 0 d5", "1 1 d5"), RUN),
    "a score that overflows": (QRELS, RUN.replace("0.5", "1e999")),
    "a hexadecimal score": (QRELS, RUN.replace("0.5", "0x1p3")),
    "a score that is not a number": (QRELS, RUN.replace("0.5", "nan")),
    "a grade that is not an integer": (QRELS.replace("d1 2", "d1 1.5"), RUN),
    "a grade of 16 digits": (QRELS.replace("d1 2", "d1 0000000000000002"), RUN),
    "a huge grade": (QRELS.replace("d1 2", "d1 5000"), RUN),
    "a retrieved topic judged only negatively": (QRELS + "3 0 z -1\n", RUN + "3 Q0 z 1 1 tag\n"),
    "no shared topic": (QRELS.replace("1 0", "7 0"), RUN),
    "an empty run": (QRELS, ""),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_what_it_does_not_serve_goes_to_the_engine(tmp_path, monkeypatch, served, case):
    qrels_text, run_text = REFUSED[case]
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(qrels_text, encoding="utf-8")
    run.write_text(run_text, encoding="utf-8")
    argv = ["evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]
    assert run_cli(*argv) == engine_cli(monkeypatch, *argv)
    assert served == [None]


FLAGS_REFUSED = {
    "-J": ["-J"],
    "another tie-break": ["--tie-break", "docno_asc"],
    "float64 scores": ["--score-precision", "float64"],
    "a measure by name": ["-m", "map"],
    "trec_eval 10": ["--compat", "trec_eval10"],
    "-l 0": ["-l", "0"],
}


@pytest.mark.parametrize("case", FLAGS_REFUSED, ids=list(FLAGS_REFUSED))
def test_other_flags_go_to_the_engine(tmp_path, monkeypatch, served, case):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    argv = ["evaluate", "-q", *FLAGS_REFUSED[case], str(qrels), str(run)]
    assert run_cli(*argv) == engine_cli(monkeypatch, *argv)
    assert served in ([], [None])


def test_compressed_and_large_files_go_to_the_engine(tmp_path, monkeypatch, served):
    qrels, run, packed = tmp_path / "q", tmp_path / "r", tmp_path / "r.gz"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    packed.write_bytes(gzip.compress(RUN.encode()))
    assert run_cli("evaluate", str(qrels), str(packed))[0] == 0
    monkeypatch.setattr(plain_evaluate, "SMALL_INPUTS", len(QRELS) + len(RUN) - 1)
    assert run_cli("evaluate", str(qrels), str(run))[0] == 0
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", str(len(QRELS) + len(RUN)))
    assert run_cli("evaluate", str(qrels), str(run))[0] == 0
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")
    assert run_cli("evaluate", str(qrels), str(run))[0] == 0
    assert [answer is None for answer in served] == [True, True, False, True]


def test_its_work_by_hand(monkeypatch):
    """~2 a line, and per shared topic ~1 a value, twice when printed (-q); the shared
    topics counted only when their bound (a topic a line, at most every qrels topic)
    could pass PLAIN_WORK."""
    qrels = plain_evaluate.Qrels({b"1": {b"d1": 1}, b"2": {b"x": 0}}, 2, 1)
    run = b"1 Q0 d1 1 0.5 t\n" * 3 + b"7 Q0 z 4 0.1 t\n"  # topic 7: not judged
    # official: 4 counts, map, gm_map, Rprec, bpref, recip_rank, 11 iprec_at_recall, 9 P
    # bound: 2 of the qrels topics could be shared
    assert plain_evaluate._work(qrels, run, 29, False) == 2 * 4 + 2 * 29 * 1
    # all_trec under -q: 94 names (relstring, and num_q and the gm_ means of the summary)
    assert plain_evaluate._work(qrels, run, 94, True) == 2 * 4 + 2 * 94 * 2
    monkeypatch.setattr(plain_evaluate, "PLAIN_WORK", 2 * 4 + 2 * 29 - 1)  # bound too high
    assert plain_evaluate._work(qrels, run, 29, False) == 2 * 4 + 1 * 29 * 1  # topic 1 only
    assert plain_evaluate._work(qrels, run + b"\n  \n", 29, False) == 2 * 6 + 1 * 29


def test_a_run_of_more_lines_than_the_work_left_is_refused_on_its_line_count(tmp_path):
    run = tmp_path / "r"
    run.write_text("1 Q0 d1 1 0.5 t\n" * 3)
    assert plain_evaluate._text(str(run), 3) == b"1 Q0 d1 1 0.5 t\n" * 3
    assert plain_evaluate._text(str(run), 2) is None


def test_many_topics_go_to_the_engine_when_each_prints_much(tmp_path, monkeypatch, served):
    """3,000 one-document topics: -q -m all_trec prints 94 values each (3,000 x 94 x 2
    and 2 x 6,000 lines, past PLAIN_WORK), -m official sums 29 each (served here)."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"{t} 0 d{t} {t % 2}\n" for t in range(3000)))
    run.write_text("".join(f"{t} Q0 d{t} 1 {t / 7:.3f} tag\n" for t in range(3000)))
    many = ["evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]
    assert run_cli(*many) == engine_cli(monkeypatch, *many)
    official = ["evaluate", str(qrels), str(run)]
    assert run_cli(*official) == engine_cli(monkeypatch, *official)
    assert served[0] is None and served[1] is not None


def test_a_long_line_is_found_at_each_place_by_hand(monkeypatch):
    """With MAX_LINE 4: a line of 3 bytes is short, one of 4 is long, wherever it is
    (first, across the first window's end, last, or after many short lines)."""
    monkeypatch.setattr(plain_evaluate, "MAX_LINE", 4)
    assert not plain_evaluate._long_line(b"abc\n")  # 4 bytes in all: no search
    assert not plain_evaluate._long_line(b"abc\nabc\nab\na\n\nabc\n")
    assert plain_evaluate._long_line(b"abcd\n")
    assert plain_evaluate._long_line(b"ab\nabcd\nab\n")  # starts at 3, window 3..6
    assert plain_evaluate._long_line(b"a\n" * 9 + b"abcde\n")
    assert plain_evaluate._long_line(b"abc\nabc\nabcd\n")


@given(st.lists(st.integers(0, 9), min_size=1, max_size=40), st.integers(1, 12))
def test_a_long_line_is_what_the_line_lengths_say(lengths, limit):
    data = b"".join(b"x" * n + b"\n" for n in lengths)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(plain_evaluate, "MAX_LINE", limit)
        assert plain_evaluate._long_line(data) == (max(lengths) >= limit)


@given(
    st.lists(st.sampled_from([b"1", b"2", b"10"]), max_size=60),
    st.sets(st.sampled_from([b"1", b"2", b"10"])),
)
def test_items_are_grouped_by_topic_in_file_order_whatever_the_order(topics, others):
    """Grouped or not, each topic's items in file order; `others`' left out."""
    items = [(i,) for i in range(len(topics))]
    grouped = plain_evaluate._grouped(topics, items, frozenset(others))
    assert list(grouped) == [t for t in dict.fromkeys(topics) if t not in others]
    for topic, found in grouped.items():
        assert found == [(i,) for i, t in enumerate(topics) if t == topic]


def test_a_limit_that_is_no_number_is_an_error(tmp_path, monkeypatch):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "4M")
    status, out, err = run_cli("evaluate", str(qrels), str(run))
    assert (status, out) == (2, "")
    assert "IRSCORE_PLAIN_BYTES='4M': give a number of bytes" in err


# What a small input's start-up must not pay for: the numerical libraries, the API, and
# the standard modules the path was rid of (dataclasses brings inspect; gzip is lazy).
HEAVY = ("numpy", "pyarrow", "pandas", "irscore.api", "dataclasses", "inspect", "pathlib", "gzip")
CAPTURED = {"capture_output": True, "text": True, "check": True}


def test_a_small_input_is_scored_without_numpy_or_arrow(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    shown = f"print(*(m for m in {HEAVY!r} if m in sys.modules))\n"
    code = (
        "import sys, io, contextlib\n"
        "from irscore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['evaluate', '-q', '-m', 'all_trec', {str(qrels)!r}, {str(run)!r}])\n" + shown
    )
    # Python itself may load some of them (a .pth file at start-up): those don't count
    before = subprocess.run([sys.executable, "-c", "import sys\n" + shown], **CAPTURED)
    done = subprocess.run([sys.executable, "-c", code], **CAPTURED)
    assert set(done.stdout.split()) == set(before.stdout.split()) != set(HEAVY)


def test_its_families_are_the_registrys():
    """The plain path's own lists (the registry loads numpy) name the engine's families,
    in trec_eval's print order; runid is printed on its own."""
    from irscore.engine.measures import registry
    from irscore.engine.small import plain_measures as pm

    assert ("runid", *pm.OFFICIAL) == registry.OFFICIAL
    assert ("runid", *pm.ALL_TREC) == registry.ALL_TREC[9]
    names = [name for _, names, _ in pm.FAMILIES for name in names]
    assert {n for n in names if registry.is_text(n)} == pm.TEXT
    assert {n for n in names if registry.is_integer(n)} == pm.INTEGER


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(inputs(), FLAGS)
def test_two_processes_print_the_bytes_of_one(tmp_path_factory, monkeypatch, texts, flags):
    """Every run scored in two halves of its topics, the second in a forked process
    (`forked.WORTH_IT` 0): the same bytes as the engine, and as this path in one."""
    folder = tmp_path_factory.mktemp("plain")
    (folder / "q").write_text(texts[0])
    (folder / "r").write_text(texts[1])
    argv = ["evaluate", *" ".join(flags).split(), str(folder / "q"), str(folder / "r")]
    splits, answers = [], []
    real, real_text = forked.on_two_cores, plain_evaluate.trec_eval_text

    def spy(work, parts):
        splits.append(parts)
        return real(work, parts)

    def text_spy(*args, **kwargs):
        answers.append(real_text(*args, **kwargs))
        return answers[-1]

    with monkeypatch.context() as m:
        m.setattr(forked, "WORTH_IT", 0)
        m.setattr(forked, "possible", lambda: True)
        m.setattr(forked, "on_two_cores", spy)
        m.setattr(plain_evaluate, "trec_eval_text", text_spy)
        halves = run_cli(*argv)
    assert halves == engine_cli(monkeypatch, *argv)
    assert halves == run_cli(*argv)
    assert splits or answers[0] is None  # served: in two processes


def test_the_halves_of_the_topics_by_hand():
    topics = [b"1", b"2", b"3", b"4", b"5"]
    assert plain_evaluate._part(topics, 0, 1) == topics
    assert plain_evaluate._part(topics, 0, 2) == [b"1", b"2"]
    assert plain_evaluate._part(topics, 1, 2) == [b"3", b"4", b"5"]
    assert plain_evaluate._part([b"1"], 0, 2) == [] and plain_evaluate._part([b"1"], 1, 2) == [b"1"]


def test_a_bad_line_in_either_half_goes_to_the_engine(tmp_path, monkeypatch, served):
    """Each process checks every line's score: a bad one in the first half's topics, the
    second's, or a topic without judgments is seen all the same."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"{t} 0 d{t} 1\n" for t in range(1, 5)))
    good = [f"{t} Q0 d{t} 1 0.5 tag\n" for t in range(1, 6)]  # topic 5: no judgments
    monkeypatch.setattr(forked, "WORTH_IT", 0)
    monkeypatch.setattr(forked, "possible", lambda: True)
    argv = ["evaluate", "-q", str(qrels), str(run)]
    run.write_text("".join(good))
    assert run_cli(*argv) == engine_cli(monkeypatch, *argv)
    for bad in range(5):  # topics 1-2 in the first half, 3-4 in the second, then 5
        lines = list(good)
        lines[bad] = lines[bad].replace("0.5", "0.5x")
        run.write_text("".join(lines))
        assert run_cli(*argv) == engine_cli(monkeypatch, *argv)
    assert served[0] is not None and served[1:] == [None] * 5
