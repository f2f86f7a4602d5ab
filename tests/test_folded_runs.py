"""Small runs scored a batch at a time as one table (`irscore.engine.many_runs`, on the
workers of `irscore evaluate`) give each run what it gets alone: its values, `all`
values and notes (to the bit), its text, its warnings, and a bad run's one error line."""

from __future__ import annotations

import numpy as np
import pytest
from cli_calls import called

from irscore.engine import many_runs
from irscore.engine.evaluate import evaluate_records
from irscore.engine.measures import MeasureSpec
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.reading import trec

RUNS = 40


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A qrels of topics 1-6 (grades -1..3; topic 6 judged but retrieved by no run) and 40
    runs over different topic sets (some with topic 7 or 10, which no qrels judge; some
    without topic 1), with tied scores, unjudged documents and a run whose tag differs."""
    folder = tmp_path_factory.mktemp("folded")
    rng = np.random.default_rng(48)
    qrels = [f"{t} 0 d{d} {rng.integers(-1, 4)}\n" for t in range(1, 7) for d in range(0, 30, 2)]
    (folder / "qrels").write_text("".join(qrels))
    runs = []
    for r in range(RUNS):
        topics = [t for t in (1, 2, 3, 4, 5, 7, 10) if rng.uniform() < 0.7] or [2]
        lines = []
        for t in topics:
            depth = int(rng.integers(1, 25))
            docs = rng.choice(40, depth, replace=False)  # odd docnos are unjudged
            scores = np.round(rng.uniform(0, 2, depth), 1)  # ties at one decimal
            lines += [f"{t} Q0 d{d} {i + 1} {s} run{r:02d}\n" for i, (d, s) in
                      enumerate(zip(docs, scores, strict=True))]  # fmt: skip
        (folder / f"r{r:02d}").write_text("".join(lines))
        runs.append(str(folder / f"r{r:02d}"))
    return str(folder / "qrels"), runs


def _alone(qrels: str, runs: list[str], flags: list[str]) -> tuple[str, str]:
    """The loop's stdout (each block headed by its runid line, as several runs print it,
    -q only) and stderr, one call a run."""
    out, err = [], []
    for run in runs:
        if "-q" in flags:
            out.append(called("evaluate", "-m", "runid", qrels, run)[1])
        status, printed, said = called("evaluate", *flags, qrels, run)
        assert status == 0, said
        out.append(printed)
        err.append(said)
    return "".join(out), "".join(err)


@pytest.mark.parametrize(
    "flags",
    [
        ["-q", "-m", "all_trec"],
        ["-q", "-c", "-m", "all_trec"],
        ["-c", "-m", "official"],
        ["-q", "-J", "-M", "5", "-l", "2", "-m", "all_trec", "-m", "ndcg_cut.3"],
    ],
)
def test_one_call_prints_what_each_run_prints_alone(files, monkeypatch, tmp_path, flags):
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")  # the engine, on two forked workers
    batches = tmp_path / "batches"  # each folded batch's size, written by the worker
    folded = many_runs.folded

    def counted(qrels, runs, c, spec):
        with open(batches, "a") as out:
            out.write(f"{len(runs)}\n")
        return folded(qrels, runs, c, spec)

    monkeypatch.setattr(many_runs, "folded", counted)
    qrels, runs = files
    status, together, said = called("evaluate", *flags, qrels, *runs)
    assert status == 0, said
    assert (together, said) == _alone(qrels, runs, flags)
    assert sum(map(int, batches.read_text().split())) == RUNS  # every run folded, once
    assert "without judgments" in said and "no results for" in said  # both sides miss topics


@pytest.mark.parametrize("flags", [["-Z", "z"], ["--verbose"]], ids=["-Z", "--verbose"])
def test_z_scores_and_verbose_are_left_to_the_per_run_scoring(files, monkeypatch, tmp_path, flags):
    """Folding prints neither z-scores nor a run's description: under -Z or --verbose no
    batch is folded, and each run prints what it prints alone."""
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "z").write_text("1 P_5 0.1 0.05\n2 P_5 0.2 0.1\n")
    batches = tmp_path / "batches"  # written by a worker that folds a batch
    folded = many_runs.folded

    def counted(qrels, runs, c, spec):
        batches.write_text("folded")
        return folded(qrels, runs, c, spec)

    monkeypatch.setattr(many_runs, "folded", counted)
    qrels, runs = files
    flags = [*flags, "-q", "-m", "P.5"]  # -q: each block headed by its runid, as alone
    status, together, said = called("evaluate", *flags, qrels, *runs[:8])
    assert status == 0, said
    out, err = _alone(qrels, runs[:8], flags)
    assert together == out
    assert said.splitlines() == list(dict.fromkeys(err.splitlines()))  # the qrels' line once
    assert not batches.exists()
    assert together.count("P_5") >= 8 and ("ZP_5" in together) == ("-Z" in flags)


@pytest.mark.parametrize(
    "bad",
    [
        "1 Q0 d1 1 0.5 t\n1 Q0 d2 2 high t\n",  # a score that is no number: read
        "1 Q0 d2 1 0.5 t\n1 Q0 d2 2 0.4 t\n",  # a document twice: ranked
    ],
    ids=["malformed", "duplicate"],
)
def test_a_bad_run_among_them_is_the_error_it_is_alone(files, monkeypatch, tmp_path, bad):
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")
    qrels, runs = files
    path = tmp_path / "bad"
    path.write_text(bad)
    status, out, said = called("evaluate", "-q", "-m", "all_trec", qrels, *runs[:5], path, *runs)
    alone = called("evaluate", "-q", "-m", "all_trec", qrels, path)
    assert (status, out) == (2, "")
    assert alone[0] == 2 and said.endswith(alone[2])
    assert said.count("error") == 1


@pytest.mark.parametrize(
    "convention",
    [REFERENCE, Convention(topics="all_qrels"), Convention(unjudged="removed", depth=4)],
    ids=["reference", "-c", "-J -M 4"],
)
def test_folded_values_are_each_run_s_alone_to_the_bit(files, convention):
    qrels_path, paths = files
    qrels = trec.read_qrels_records(qrels_path)
    runs = [trec.read_run_records(path) for path in paths[:12]]
    spec = MeasureSpec(families=frozenset({"map", "P", "ndcg_cut", "gm_map", "num_rel"}))
    for run, got in zip(runs, many_runs.folded(qrels, runs, convention, spec), strict=True):
        values, topics, means, notes = evaluate_records(qrels, run, convention, spec, text=True)
        assert list(got.topics) == list(topics)
        assert got.values.keys() == values.keys()
        for name, array in values.items():
            assert got.values[name].tobytes() == array.tobytes(), name
        assert {n: float(v).hex() for n, v in got.means.items()} == {
            n: float(v).hex() for n, v in means.items()
        }
        got.notes.not_computed = notes.not_computed
        assert got.notes == notes


def test_only_conventions_that_read_one_topic_at_a_time_are_folded():
    spec = MeasureSpec()
    assert many_runs.foldable(Convention(topics="all_qrels", rel_level=2, depth=10), spec)
    assert not many_runs.foldable(Convention(tie_break="rank"), spec)
    assert not many_runs.foldable(Convention(duplicates="first"), spec)
    assert not many_runs.foldable(REFERENCE, MeasureSpec(families=frozenset({"alpha_ndcg"})))


def test_a_document_in_many_runs_is_joined_to_its_judgment():
    """Folded runs retrieve one (topic, docno) many times: the join's unstable sort puts
    such long runs of equal keys back in row order (the judgment first), so every row
    gets the judged grade."""
    import pyarrow as pa

    from irscore.engine.system import joins

    rng = np.random.default_rng(3)
    topics, docs, runs = 50, 40, 64
    q_topic = np.repeat(np.arange(topics), docs)
    docnos = np.tile(np.arange(docs), topics).astype(str)
    q_grade = rng.integers(0, 4, topics * docs)
    picked = rng.integers(0, topics * docs, topics * docs * runs)  # each pair ~64 times
    joined = joins.join(
        q_topic,
        pa.array(docnos),
        q_grade,
        q_topic[picked],
        pa.array(docnos[picked]),
        rng.uniform(size=len(picked)),
    )
    assert (joined.grade == q_grade[picked]).all()


@pytest.mark.parametrize("convention", [REFERENCE, Convention(topics="all_qrels")])
def test_each_run_s_means_are_its_own_running_means_to_the_bit(convention):
    """Sums of hundreds of values, where any other order of addition (numpy's pairwise
    sum) differs in the last bits; NaN (a mean over the topics with a value), -c's
    filled topics and a run with no topic among them."""
    from irscore.engine.evaluate import RunningMeans

    rng = np.random.default_rng(5)
    bounds = np.array([0, 300, 300, 751, 1200])
    names = ["map", "gm_map", "num_ret", "P_5", "gm_bpref", "num_rel", "accuracy"]
    values = {name: rng.uniform(0, 1, 1200) * 10.0 ** rng.integers(-8, 3, 1200) for name in names}
    values["accuracy"][::7] = np.nan
    filled = rng.uniform(size=1200) < 0.1
    got = many_runs._means(values, filled, bounds, convention, 42.0)
    for k in range(len(bounds) - 1):
        alone = RunningMeans(convention)
        part = slice(bounds[k], bounds[k + 1])
        alone.add({n: a[part] for n, a in values.items()}, filled[part], 42.0)
        want = alone.result()
        assert {n: float(v).hex() for n, v in got[k].items()} == {
            n: float(v).hex() for n, v in want.items()
        }


def test_parts_formatted_together_are_each_part_s_lines_alone():
    """`topic_lines_of_parts` (several runs' per-topic lines in one pass, split back by
    each row's bytes) gives each part what `lines` gives it: an empty part first and in
    the middle, topics of different lengths, integer, fixed-point and text measures."""
    from irscore.engine.output import trec_eval_text

    rng = np.random.default_rng(7)
    topics = np.array(["1", "22", "333", "4", "55555", "6", "77"], dtype=object)
    values = {
        "num_ret": rng.integers(0, 1000, len(topics)).astype(float),
        "map": rng.uniform(0, 1, len(topics)),
        "relstring": np.array(["RN", "", "R", "NNN", "-", "R", "N"], dtype=object),
        "P_5": rng.uniform(0, 12, len(topics)),  # some >= 10: Python's formatting
    }
    parts = [np.array([], np.int64), np.array([0, 1]), np.array([], np.int64), np.array([3, 5, 6])]
    got = trec_eval_text.topic_lines_of_parts(values, topics, parts)
    for part, text in zip(parts, got, strict=True):
        alone = trec_eval_text.lines(
            {name: array[part] for name, array in values.items()},
            topics[part],
            {},
            None,
            per_topic=True,
            summary=False,
        )
        assert text == b"".join(alone)
    assert got[0] == got[2] == b"" and got[1].count(b"\n") == 2 * 4


def test_batches_hold_3_mib_of_small_runs_and_larger_runs_alone():
    """3 MiB of small runs a batch (9 of 330 kB: 2.97 MB; a 10th would pass 3,145,728
    bytes; three of 1 MiB: 3,145,728); a run above 1 MiB alone, and none beside it (two
    TREC DL runs of 1.57 MB would fit 3 MiB); at least two batches a worker (20 runs: 5
    a batch)."""
    from irscore.cli.folded_runs import batches

    def lengths(sizes: list[int]) -> list[int]:
        return [len(b) for b, _ in batches([str(i) for i in range(len(sizes))], sizes, 2)]

    assert lengths([330_000] * 1000)[:3] == [9, 9, 9]
    assert lengths([1 << 20] * 30) == [3] * 10
    assert lengths([1_566_467] * 30) == [1] * 30
    assert lengths([100, (1 << 20) + 1, 100, 100, *[330_000] * 16])[:3] == [1, 1, 5]
    assert lengths([330_000] * 20) == [5, 5, 5, 5]
