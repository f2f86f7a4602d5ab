"""The Python API: every input form gives the CLI's numbers, errors say what is wrong,
`import irscore` stays light, and the README's "From Python" examples run as written."""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute
import pytest
import pytrec_eval
import yaml
from doc_pages import page
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pytrec_property import collections

import irscore
import irscore.api
from irscore.cli import main
from irscore.engine.measures import MeasureError
from irscore.engine.ranking.conventions import Convention, ConventionError
from irscore.engine.reading import trec
from irscore.engine.reading.inputs import InputError

pytestmark = pytest.mark.slow  # started early (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
IRSCORE = [sys.executable, "-m", "irscore"]
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
RUN = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.1}, "q2": {"d5": 3.0, "d4": 1.0}}
# pandas 3's default (Arrow-backed) strings, Python objects, categoricals, Arrow's own
ID_DTYPES = {
    "str": "str",
    "object": object,
    "category": "category",
    "arrow": pd.ArrowDtype(pa.string()),
}
GRID = [
    "reference",
    "tie_docno_asc",
    "tie_file_order",
    "tie_rank",
    "tie_expected",
    "all_qrels",
    "judged_only",
    {"name": "cut_2", "depth": 2},
]


def test_docstring_examples_run():
    from irscore.engine import arguments

    result = doctest.testmod(irscore.api, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0
    result = doctest.testmod(arguments, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 2 and result.failed == 0


def test_hand_worked_values_from_dicts():
    table = irscore.evaluate(QRELS, RUN, measures=["map", "P_2", "recip_rank"])
    values = {(t, m): v for t, m, v in zip(table.topic, table.measure, table.value, strict=True)}
    # q1: d1 and d2 tie at 0.5; trec_eval puts d2 first (docno descending): d2, d1, d3
    # with d1 and d3 relevant: AP = (1/2 + 2/3) / 2 = 7/12, P@2 = 1/2, RR = 1/2.
    assert values["q1", "map"] == pytest.approx(7 / 12)
    assert values["q1", "P_2"] == 0.5
    assert values["q1", "recip_rank"] == 0.5
    # q2: d5 (unjudged) then d4: AP = 1/2, P@2 = 1/2, RR = 1/2.
    assert values["q2", "map"] == 0.5
    # means: (7/12 + 1/2) / 2 = 13/24
    assert values["all", "map"] == pytest.approx(13 / 24)


def test_measure_names_printed_and_requested():
    table = irscore.evaluate(QRELS, RUN, measures=["P_1", "ndcg_cut.1,2", "iprec_at_recall_0.50"])
    assert list(dict.fromkeys(table["measure"])) == [
        "iprec_at_recall_0.50",
        "P_1",
        "ndcg_cut_1",
        "ndcg_cut_2",
    ]


@pytest.mark.parametrize(
    ("name", "close"),
    [
        ("ndcg10", "ndcg_cut_10"),
        ("nDCG10@", "in ir_measures / ranx syntax: nDCG@10"),
        ("P@1O", "P@10"),
        ("mapp", "map"),
        ("iprec_at_recall_0.55", ""),
    ],
)
def test_unknown_measure_lists_close_names(name, close):
    with pytest.raises(MeasureError, match=f"unknown measure '{re.escape(name)}'") as err:
        irscore.evaluate(QRELS, RUN, measures=name)
    assert close in str(err.value)


def test_convention_forms_and_errors():
    table = irscore.evaluate(QRELS, RUN, measures="map", convention=GRID, per_topic=False)
    assert list(table["convention"]) == [c if isinstance(c, str) else c["name"] for c in GRID]
    assert set(table["topic"]) == {"all"}
    one = irscore.evaluate(QRELS, RUN, measures="map", convention=Convention(name="mine"))
    assert set(one["convention"]) == {"mine"}
    unnamed = irscore.evaluate(QRELS, RUN, measures="map", convention={"unjudged": "removed"})
    assert set(unnamed["convention"]) == {"-J"}
    with pytest.raises(ConventionError, match="did you mean tie_expected"):
        irscore.evaluate(QRELS, RUN, convention="tie_expectd")
    with pytest.raises(ConventionError, match="unknown field"):
        irscore.evaluate(QRELS, RUN, convention={"tiebreak": "docno_asc"})
    with pytest.raises(ConventionError, match="named twice: reference"):
        irscore.evaluate(QRELS, RUN, convention=["reference", {"name": "reference"}])


@pytest.mark.filterwarnings("ignore:no form under tie_expected")  # the grid's known gaps
def test_grid_equals_one_convention_at_a_time():
    together = irscore.evaluate(QRELS, RUN, convention=GRID)
    for convention in GRID:
        alone = irscore.evaluate(QRELS, RUN, convention=convention)
        name = convention if isinstance(convention, str) else convention["name"]
        part = together[together["convention"] == name]
        np.testing.assert_array_equal(part["value"].to_numpy(), alone["value"].to_numpy())


def test_several_runs_by_name_and_dataframe_columns(tmp_path):
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    qrels = pd.DataFrame(
        [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    table = irscore.evaluate(qrels, {"a": frame, "b": RUN}, measures="map")
    a, b = (table[table["run"] == name]["value"].to_numpy() for name in "ab")
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), r"no score column"),
        (
            pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, np.nan]}),
            r"run row 1: score nan is not finite",
        ),
        (  # a dict's rows are named by their topic and docno
            {"1": {"a b": 1.0}},
            r"run docno of topic '1', docno 'a b': 'a b' is empty or contains whitespace",
        ),
        ({"1": {"a": "x"}}, r"run of topic '1', docno 'a': score 'x' is not finite"),
        (
            pd.DataFrame({"topic": ["1"], "docno": ["a"], "score": [1.0], "rank": [1.5]}),
            r"run rank row 0: 1.5 is not a whole number",
        ),
        (
            pd.DataFrame({"topic": ["1"], "qid": ["1"], "docno": ["a"], "score": [1.0]}),
            r"columns topic and qid both name the topic",
        ),
        (42, r"expected a path, a DataFrame or a dict"),
        # pandas 3's default strings are Arrow's: checked by Arrow, with the same messages
        (
            pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}),
            r"run topic row 1: missing value",
        ),
        (
            pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", ""], "score": [1.0, 2.0]}),
            r"run docno row 1: '' is empty or contains whitespace",
        ),
        (
            pd.DataFrame(
                {"query_id": ["1", "1"], "doc_id": ["a", "b\u3000"], "score": [1.0, 2.0]}
            ).astype({"doc_id": pd.ArrowDtype(pa.string())}),
            r"run docno row 1: 'b\\u3000' is empty or contains whitespace",
        ),
    ],
)
def test_bad_runs_are_errors_naming_the_row(run, message):
    with pytest.raises(InputError, match=message):
        irscore.evaluate(QRELS, run)


def test_a_run_bad_in_two_columns_names_the_first_column_in_order():
    # the docnos are checked in the calling thread while a helper checks the topics: the
    # topic's error still comes first, as when the columns are checked one by one
    both = pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", ""], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"run topic row 1: missing value"):
        irscore.evaluate(QRELS, both)
    tag_too = both.assign(query_id=["1", "1"], tag=["x", "y z"])
    with pytest.raises(InputError, match=r"run docno row 1: '' is empty"):
        irscore.evaluate(QRELS, tag_too)


def test_ids_with_whitespace_are_found_as_python_finds_it():
    """Arrow checks ids for whitespace with a pattern: it matches exactly the characters
    for which str.isspace() is true, over every code point."""
    points = [chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF]
    matched = pa.compute.match_substring_regex(
        pa.array(points), irscore.engine.reading.inputs._SPACE
    )
    flagged = [c for c, hit in zip(points, matched.to_pylist(), strict=True) if hit]
    assert flagged == [c for c in points if c.isspace()]
    assert len(flagged) == 29  # \t\n\v\f\r, \x1c-\x1f, space, \x85 and 19 in Unicode's Z


def test_the_byte_scan_sees_every_id_the_pattern_might_flag():
    """`maybe_blank` lets the pattern off only when no byte could be whitespace: every
    code point Python calls whitespace, and the empty id, are seen by the scan."""
    points = [chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF]
    missed = [
        c
        for c in points
        if c.isspace() and not irscore.engine.reading.inputs.maybe_blank(pa.array([c]))
    ]
    assert missed == []
    assert irscore.engine.reading.inputs.maybe_blank(pa.array(["a", ""]))
    assert not irscore.engine.reading.inputs.maybe_blank(pa.array(["a!~", "Z0"]))


def test_bad_qrels_are_errors():
    with pytest.raises(InputError, match="relevance of topic '1', docno 'a': 'high' is not a"):
        irscore.evaluate({"1": {"a": "high"}}, RUN)
    doubled = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    with pytest.raises(InputError, match="row 1: document a is judged twice for topic 1"):
        irscore.evaluate(doubled, RUN)
    with pytest.raises(trec.TrecFormatError, match=r"q.txt:1: expected 4 columns"):
        bad = Path("q.txt")
        try:
            bad.write_text("1 0 a\n")
            irscore.evaluate(str(bad), RUN)
        finally:
            bad.unlink()


def test_unknown_ir_datasets_id_is_an_error():
    # in a subprocess: ir_datasets binds its home folder when first imported, and other
    # tests load Cranfield from a home of their own
    code = (
        "import irscore\n"
        "try:\n    irscore.evaluate('irds:no-such/dataset', {'1': {'a': 1.0}})\n"
        "except irscore.engine.reading.inputs.InputError as error:\n    print(error)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "irds:no-such/dataset: unknown ir_datasets ID\n"


# pandas' Arrow-backed strings: pandas 3's default `str` is one, pandas 2.2's is object
ARROW_STRINGS = ["string[pyarrow]", "str" if pd.__version__ >= "3" else "string[pyarrow_numpy]"]


@pytest.mark.parametrize("dtype", ARROW_STRINGS)
def test_a_pool_of_docnos_is_coded_and_distinct_docnos_stay_strings(dtype):
    """Arrow-backed docnos are hashed into categories when they come from a pool. 65,536
    draws spread over 200,000 rows from a pool of 20,000 hold about
    20,000 x (1 - e^(-65,536 / 20,000)) = 19,250 distinct values, at most half the
    sample: a pool. (4,096 draws would hold ~3,700: more than half, "distinct".)"""
    from irscore.engine.reading.inputs import _mostly_distinct

    rng = np.random.default_rng(5)
    pooled = pd.Series([f"d{i}" for i in rng.integers(0, 20_000, 200_000)], dtype=dtype)
    distinct = pd.Series([f"d{i}" for i in rng.permutation(200_000)], dtype=dtype)
    assert pooled.dtype.storage.startswith("pyarrow")
    assert not _mostly_distinct(pooled)
    assert _mostly_distinct(distinct)


@pytest.mark.filterwarnings("ignore:no form under tie_expected")  # the grid's known gaps
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(list(ID_DTYPES)), st.sampled_from([1, 4096]))
def test_dataframe_dict_and_file_give_identical_tables(tmp_path_factory, data, dtype, sample):
    """The same generated run (ties, float32-equal scores, missing topics) as a DataFrame
    with ir_measures' columns (ids in each dtype pandas offers), as a pytrec_eval dict
    and as a TREC file. A sample of one row makes Arrow-backed docnos look mostly
    distinct, so they stay plain strings (joined by sorting) instead of categories."""
    qrels, run = data
    with mock.patch.object(irscore.engine.reading.inputs, "_SAMPLE", sample):
        _identical_tables(tmp_path_factory, qrels, run, dtype)


def _identical_tables(tmp_path_factory, qrels, run, dtype):
    folder = tmp_path_factory.mktemp("forms")
    trec.write_run(folder / "run.txt", run)
    trec.write_qrels(folder / "qrels.txt", qrels)
    frame = run.rename(columns={"topic": "query_id", "docno": "doc_id"})[
        ["query_id", "doc_id", "score"]
    ]
    ids = ID_DTYPES[dtype]
    frame = frame.astype({"query_id": ids, "doc_id": ids})
    qrels = qrels.astype({"topic": ids, "docno": ids})
    nested: dict[str, dict[str, float]] = {}
    for topic, docno, score in zip(run.topic, run.docno, run.score, strict=True):
        nested.setdefault(topic, {})[docno] = score
    qrels_nested: dict[str, dict[str, int]] = {}
    for topic, docno, grade in zip(qrels.topic, qrels.docno, qrels.grade, strict=True):
        qrels_nested.setdefault(topic, {})[docno] = int(grade)
    if not set(run["topic"]) & set(qrels["topic"]):
        return
    tables = [
        irscore.evaluate(q, {"gen": r}, convention=GRID).astype({"topic": str, "measure": str})
        for q, r in (
            (qrels_nested, frame),
            (qrels, nested),
            (str(folder / "qrels.txt"), str(folder / "run.txt")),
        )
    ]
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other, check_categorical=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_dicts_equal_pytrec_eval_on_the_same_dicts(data):
    qrels, run = data
    qrels_nested: dict[str, dict[str, int]] = {}
    for topic, docno, grade in zip(qrels.topic, qrels.docno, qrels.grade, strict=True):
        qrels_nested.setdefault(topic, {})[docno] = int(grade)
    # pytrec_eval drops a topic none of whose grades is >= 0; so does the cross-check
    qrels_nested = {t: q for t, q in qrels_nested.items() if max(q.values()) >= 0}
    nested: dict[str, dict[str, float]] = {}
    for topic, docno, score in zip(run.topic, run.docno, run.score, strict=True):
        nested.setdefault(topic, {})[docno] = float(score)
    if not qrels_nested or not set(nested) & set(qrels_nested):
        return
    requests = ["map", "P.1,5", "ndcg_cut.3", "recip_rank", "recall.5", "bpref", "Rprec"]
    theirs = pytrec_eval.RelevanceEvaluator(qrels_nested, set(requests)).evaluate(nested)
    ours = irscore.evaluate(qrels_nested, nested, measures=requests)
    ours = ours[ours["topic"] != "all"]
    assert len(ours) == sum(len(values) for values in theirs.values())
    for topic, measure, value in zip(ours.topic, ours.measure, ours.value, strict=True):
        assert value == pytest.approx(theirs[topic][measure], abs=1e-9), (topic, measure)


def command_line(*argv: str) -> str:
    """What `irscore ARGV` prints, run in this process (its start-up is not what is
    compared; tests/test_cli.py runs the installed command)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_compare_and_audit_match_the_command_line(tmp_path):
    qrels_path, a_path, b_path = tmp_path / "q", tmp_path / "a.run", tmp_path / "b.run"
    trec.write_qrels(
        qrels_path,
        pd.DataFrame(
            [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
            columns=["topic", "docno", "grade"],
        ),
    )
    run = pd.DataFrame(
        [(q, d, r, s, "a") for q, docs in RUN.items() for r, (d, s) in enumerate(docs.items(), 1)],
        columns=trec.RUN_COLUMNS,
    )
    trec.write_run(a_path, run)
    trec.write_run(b_path, run.assign(score=-run["score"], tag="b"))
    files = [str(qrels_path), str(a_path), str(b_path)]
    ours = irscore.compare(*files, B=1000, seed=3)
    cli = command_line("compare", "--format", "tsv", "--B", "1000", "--seed", "3", *files)
    text = ours.to_csv(sep="\t", index=False, float_format=trec.float_text, lineterminator="\n")
    assert text == cli
    result = irscore.audit(str(qrels_path), [str(a_path), str(b_path)], out=tmp_path / "o", B=100)
    summary = command_line("audit", "--B", "100", "--out", str(tmp_path / "o"), *files)
    assert result.summary == summary
    assert set(result.conventions["run"]) == {"a", "b"}


def test_import_irscore_loads_no_numerical_library():
    code = (
        "import sys, json, irscore; irscore.evaluate; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'pandas', 'pyarrow', 'scipy', 'matplotlib', 'ir_datasets'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_the_api_is_imported_when_first_used():
    """`import irscore` (which every command runs first) leaves irscore.api unloaded;
    each name of `__all__` loads where it lives, and is then the package's own."""
    code = (
        "import sys, irscore; print('irscore.api' in sys.modules); "
        "from irscore import Convention, InputError; print('irscore.api' in sys.modules); "
        "irscore.compare; print('irscore.api' in sys.modules, 'compare' in vars(irscore))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:3] == ["False", "False", "True True"]
    assert set(irscore.__all__) <= set(dir(irscore))
    assert irscore.Convention is Convention and irscore.InputError.__module__.endswith("errors")
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        irscore.evaluat  # noqa: B018


def test_api_names_survive_importing_the_modules_of_the_same_names():
    import irscore.analysis.audit
    import irscore.engine.evaluate

    assert irscore.evaluate is irscore.api.evaluate
    assert irscore.audit is irscore.api.audit
    assert irscore.engine.evaluate.evaluate is not irscore.evaluate


def _python_section(text: str) -> str:
    """The `pycon` examples of docs/python-api.md, as one doctest text."""
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.S)
    assert len(blocks) >= 4, "docs/python-api.md lost its examples"
    return "\n".join(blocks)


def test_readme_from_python_examples_run(cranfield, tmp_path):
    """Every example of "From Python", on runs built here as the workflow builds them;
    the first reproduces the headline MAP of bm25."""
    from irscore.pipeline.data import seed_home
    from irscore.pipeline.retrieve import retrieve_to_files

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    results = tmp_path / "results"
    (results / "data").mkdir(parents=True)
    (results / "data" / "qrels.txt").write_bytes((cranfield / "qrels.txt").read_bytes())
    for name in ("bim", "tfidf", "bm25"):
        spec = config["retrievers"][name]
        retrieve_to_files(
            docs=cranfield / "docs.jsonl",
            queries=cranfield / "queries.tsv",
            run=results / "runs" / f"{name}.run",
            manifest=results / "runs" / f"{name}.manifest.json",
            name=name,
            spec=spec,
            analyzer=config["analyzers"][spec.get("analyzer", "default")],
        )
    raw = os.environ.get("CRANFIELD_DIR") or str(REPO.parent / "shared" / "data" / "cranfield")
    seed_home(raw, tmp_path / "irds_home")
    readme = (REPO / "README.md").read_text()
    examples = _python_section(page("python-api.md"))
    headline = re.search(r"^\| bm25 \| (.*) \|$", readme, re.M).group(1).split(" | ")
    assert f"map  {headline[3]}" in examples, "the first example must show the headline MAP"
    (tmp_path / "x.txt").write_text(examples)
    done = subprocess.run(
        [sys.executable, "-m", "doctest", "-o", "ELLIPSIS", "-o", "NORMALIZE_WHITESPACE", "x.txt"],
        cwd=tmp_path,
        env={**os.environ, "IR_DATASETS_HOME": str(tmp_path / "irds_home")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_measure_the_convention_cannot_compute_is_a_warning_not_silence():
    """bpref has no expected-value form: no rows, and a warning that names it and the
    convention (AP of the one relevant document at rank 1: 1/1)."""
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}
    with pytest.warns(UserWarning, match="no form under tie_expected: bpref"):
        table = irscore.evaluate(
            qrels, run, measures=["bpref", "map"], convention="tie_expected", per_topic=False
        )
    assert dict(zip(table["measure"], table["value"], strict=True)) == {"map": 1.0}


# Two topics; A ranks each relevant document lower than B does. Reciprocal rank: A 1/4
# and 1/2, B 1 and 1; P@2: A 0 and 1/2, B 1/2 and 1/2.
HAND_QRELS = {"q1": {"a": 1}, "q2": {"b": 1}}
HAND_A = {
    "q1": {"x1": 0.9, "x2": 0.8, "x3": 0.7, "a": 0.6},
    "q2": {"x1": 0.9, "b": 0.8},
}
HAND_B = {"q1": {"a": 0.9, "x1": 0.8}, "q2": {"b": 0.9, "x1": 0.8}}


def test_one_correction_spans_the_p_values_of_one_test_worked_by_hand(tmp_path):
    """With two topics the paired t statistic has 1 degree of freedom (a Cauchy law):
    two-sided p = 1 - (2 / pi) atan(|t|), t = mean(d) / (sd(d) / sqrt(2)).

    recip_rank: d = (1 - 1/4, 1 - 1/2) = (0.75, 0.5); mean 0.625; sd = 0.25 / sqrt(2);
      t = 0.625 / 0.125 = 5, p = 1 - (2 / pi) atan(5) = 1 - 0.874334 = 0.125666.
    P_2: d = (0.5 - 0, 0.5 - 0.5) = (0.5, 0); mean 0.25; sd = 0.5 / sqrt(2);
      t = 0.25 / 0.25 = 1, p = 1 - (2 / pi) atan(1) = 0.5.
    Holm over the t-test's two p-values: the smaller times 2, 0.125666 x 2 = 0.251332;
    the larger times 1 and not below it: max(0.251332, 0.5) = 0.5. The Wilcoxon rows of
    the same table are a family of their own: "across the table" would multiply 0.125666
    by 4 (four p-values), not by 2.
    """
    table = irscore.compare(
        HAND_QRELS, HAND_A, HAND_B, measures=["recip_rank", "P.2"], tests=["t", "wilcoxon"]
    )
    t = table[table["test"] == "t"].set_index("measure")
    raw_rr = 1 - 2 / np.pi * np.arctan(5)
    assert raw_rr == pytest.approx(0.125666, abs=1e-6)
    assert t.at["recip_rank", "p"] == pytest.approx(raw_rr, rel=1e-9)
    assert t.at["P_2", "p"] == pytest.approx(0.5, rel=1e-9)
    assert t.at["recip_rank", "p_adjusted"] == pytest.approx(2 * raw_rr, rel=1e-9)
    assert t.at["P_2", "p_adjusted"] == pytest.approx(0.5, rel=1e-9)
    assert table.attrs["correction"] == "Holm over each test's 2 p-values, one per measure"
    # the command line says the same, above the same numbers
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    paths = []
    for name, run in (("A", HAND_A), ("B", HAND_B)):
        path = tmp_path / f"{name}.run"
        lines = [f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()]
        path.write_text("".join(lines))
        paths.append(str(path))
    shown = subprocess.run(
        [
            *IRSCORE,
            "compare",
            str(qrels),
            *paths,
            "-m",
            "recip_rank",
            "-m",
            "P.2",
            "--test",
            "t",
            "--format",
            "text",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (
        "p adjusted: Holm over the paired t-test's 2 p-values, one per measure; alpha 0.05" in shown
    )


def test_a_narrowed_family_is_not_tested_so_the_correction_spans_what_is_shown():
    """iprec_at_recall_0.50 is computed with its family's 11 levels; only it is tested.
    With one relevant document per topic every level is the precision at its rank: A 1/4
    and 1/2, B 1 and 1, the reciprocal ranks above, so each p is 0.125666 (t = 5). Holm over
    the two p-values shown: 2 x 0.125666 = 0.251332 for both; over the twelve computed it
    would be 12 x 0.125666 > 1, capped at 1."""
    table = irscore.compare(
        HAND_QRELS, HAND_A, HAND_B, measures=["recip_rank", "iprec_at_recall_0.50"], tests="t"
    )
    assert list(table["measure"]) == ["recip_rank", "iprec_at_recall_0.50"]
    raw = 1 - 2 / np.pi * np.arctan(5)
    assert table["p"].tolist() == pytest.approx([raw, raw], rel=1e-9)
    assert table["p_adjusted"].tolist() == pytest.approx([2 * raw, 2 * raw], rel=1e-9)
    assert table.attrs["correction"] == "Holm over the paired t-test's 2 p-values, one per measure"


def test_frames_read_from_dataframes_do_not_share_the_callers_columns():
    """run_frame and qrels_frame skip pandas' copies (and its check of distinct labels):
    a change to the caller's frame afterwards must not reach what was read."""
    import pandas as pd

    from irscore.engine.reading.inputs import qrels_frame, run_frame

    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    read_run, read_qrels = run_frame(run), qrels_frame(qrels)
    run.loc[0, "score"], qrels.loc[0, "relevance"] = 5.0, 3
    assert read_run["score"].tolist() == [2.0, 1.0]
    assert read_qrels["grade"].tolist() == [1, 0]
    assert read_run["rank"].tolist() == [1, 2]  # positions within the topic, 1-based
    assert list(read_run["docno"].cat.categories) == ["d1", "d2"]
    assert read_run["tag"].tolist() == ["run", "run"]


@pytest.mark.parametrize(
    "measures",
    [
        ["ndcg_cut", "ndcg_cut.1,4"],
        ["ndcg_cut.1,4", "ndcg_cut"],
        ["P", "P.5"],
        ["P.5", "P.10"],
        ["P"],
        ["recall.3", "P", "recall"],
    ],
)
def test_a_bare_family_beside_its_cutoffs_is_read_as_pytrec_eval_reads_it(measures):
    """pytrec_eval (trec_eval's -m) reads `P` beside `P.5` as P_5 alone: the same names
    and values here, on a topic whose grades make every cut-off differ."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "e": 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1, "e": 0.05}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)["q1"]
    table = irscore.evaluate(qrels, run, measures=measures)
    ours = dict(zip(table["measure"], table["value"], strict=True))
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert sorted(ours) == sorted(theirs)
