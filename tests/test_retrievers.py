"""Retrievers on a tiny corpus, scores computed by hand; ordering, depth, scope, params."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from irscore.engine.reading.trec import read_run
from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.retrieve import RetrieverSpec, retrieve, retrieve_to_files
from irscore.pipeline.retrievers import REGISTRY, TermIndex, make_retriever

# N = 4 documents. Document frequencies: flow 1, lift 1, wave 1, shock 2, wing 3.
# Lengths: d1 3, d2 2, d3 3, d4 2 (average 10 / 4 = 2.5).
CORPUS = {
    "d1": "wing flow flow",
    "d2": "wing lift",
    "d3": "shock wave wave",
    "d4": "wing shock",
}
TEXT_ONLY = Analyzer(fields=("text",))


def docs_frame(corpus: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"docno": list(corpus), "text": list(corpus.values())})


def queries_frame(queries: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"topic": list(queries), "text": list(queries.values())})


def ranking(model: str, query: str, params=None, **options) -> list[tuple[str, float]]:
    """(docno, score) in rank order for one query against CORPUS."""
    run = retrieve(
        docs_frame(CORPUS), queries_frame({"1": query}), TEXT_ONLY, model, params, **options
    )
    assert list(run["rank"]) == list(range(1, len(run) + 1))
    return list(zip(run["docno"], run["score"], strict=True))


def assert_ranking(actual: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert [d for d, _ in actual] == [d for d, _ in expected]
    for (_, got), (_, want) in zip(actual, expected, strict=True):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_bim_scores_by_hand():
    wing = math.log((4 - 3 + 0.5) / (3 + 0.5))  # negative: wing is in 3 of 4 documents
    flow = math.log((4 - 1 + 0.5) / (1 + 0.5))
    # tf does not count: d1 has flow twice; d3 shares no term and is not retrieved.
    expected = [("d1", flow + wing), ("d4", wing), ("d2", wing)]
    assert_ranking(ranking("bim", "wing flow flow"), expected)


def test_bim_keeps_exact_ties_and_breaks_them_by_docno_descending():
    run = ranking("bim", "lift wave")
    # lift and wave both have n_t = 1: ln(3.5 / 1.5) each, an exact tie.
    assert run == [("d3", math.log(3.5 / 1.5)), ("d2", math.log(3.5 / 1.5))]
    assert run[0][1] == run[1][1]


def test_tfidf_ltc_scores_by_hand():
    idf_wing, idf_flow, idf_lift, idf_shock = math.log(4 / 3), math.log(4), math.log(4), math.log(2)
    q_norm = math.sqrt(idf_wing**2 + idf_flow**2)  # query "wing flow": tf 1 each
    d1_flow = (1 + math.log(2)) * idf_flow  # tf 2
    d1 = (idf_wing * idf_wing + idf_flow * d1_flow) / (q_norm * math.sqrt(idf_wing**2 + d1_flow**2))
    d2 = idf_wing * idf_wing / (q_norm * math.sqrt(idf_wing**2 + idf_lift**2))
    d4 = idf_wing * idf_wing / (q_norm * math.sqrt(idf_wing**2 + idf_shock**2))
    assert_ranking(ranking("tfidf", "wing flow"), [("d1", d1), ("d4", d4), ("d2", d2)])


def test_tfidf_drops_query_terms_unknown_to_the_collection():
    assert_ranking(ranking("tfidf", "wing flow supersonic"), ranking("tfidf", "wing flow"))


def test_bm25_scores_by_hand():
    k1, b = 1.2, 0.75
    raw_idf = {  # rank_bm25: ln(N - n + 0.5) - ln(n + 0.5)
        "flow": math.log(3.5) - math.log(1.5),
        "lift": math.log(3.5) - math.log(1.5),
        "wave": math.log(3.5) - math.log(1.5),
        "shock": math.log(2.5) - math.log(2.5),
        "wing": math.log(1.5) - math.log(3.5),  # negative: floored to epsilon * mean idf
    }
    wing = 0.25 * sum(raw_idf.values()) / 5

    def part(idf, tf, length):
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / 2.5))

    d1 = part(wing, 1, 3) + part(raw_idf["flow"], 2, 3)
    d2 = d4 = part(wing, 1, 2)  # same length, same tf: an exact tie, d4 first
    expected = [("d1", d1), ("d4", d4), ("d2", d2)]
    run = ranking("bm25", "wing flow", {"k1": k1, "b": b, "epsilon": 0.25})
    assert_ranking(run, expected)
    assert run[1][1] == run[2][1]


def test_ql_dirichlet_scores_by_hand():
    # |C| = 10 tokens; cf(wing) = 3, cf(flow) = 2; with mu = 10, mu p = 3 and 2.
    # score = sum over query tokens of ln((tf + mu p) / (|d| + mu)).
    d1 = math.log((1 + 3) / (3 + 10)) + math.log((2 + 2) / (3 + 10))  # wing 1, flow 2, |d| 3
    d2 = math.log((1 + 3) / (2 + 10)) + math.log((0 + 2) / (2 + 10))  # wing 1, |d| 2
    # d4 (wing shock) has the same counts and length as d2: a tie, d4 first (docno desc);
    # d3 shares no term with the query and is not retrieved.
    expected = [("d1", d1), ("d4", d2), ("d2", d2)]
    assert_ranking(ranking("ql", "wing flow", {"mu": 10}), expected)


def test_ql_counts_repeated_query_terms():
    once = dict(ranking("ql", "flow", {"mu": 10}))
    twice = dict(ranking("ql", "flow flow", {"mu": 10}))
    assert twice["d1"] == pytest.approx(2 * once["d1"])


def test_bm25_params_change_scores():
    default = dict(ranking("bm25", "wing flow"))
    flat = dict(ranking("bm25", "wing flow", {"b": 0.0}))
    assert default["d2"] == default["d4"]
    assert flat["d1"] != default["d1"]


def test_bm25_equals_rank_bm25_get_scores_bit_for_bit():
    """Scoring each distinct term once and adding in query order is rank_bm25's own sum."""
    from rank_bm25 import BM25Okapi

    rng = np.random.default_rng(7)
    vocabulary = [f"t{i}" for i in range(30)]
    docs = [list(rng.choice(vocabulary, size=rng.integers(1, 40))) for _ in range(60)]
    queries = [list(rng.choice(vocabulary, size=rng.integers(0, 12))) for _ in range(25)]
    queries.append(["t1", "t1", "t2", "t1", "absent"])  # repeats and an unknown term
    params = {"k1": 1.5, "b": 0.75, "epsilon": 0.25}
    ours = make_retriever("bm25", params).score(TermIndex.build(docs), queries)
    model = BM25Okapi(docs, **params)
    theirs = np.array([model.get_scores(q) for q in queries])
    assert ours.tobytes() == theirs.tobytes()


def test_ties_order_docnos_descending_as_strings():
    corpus = {"9": "flow", "10": "flow", "100": "flow", "2": "flow"}
    run = retrieve(docs_frame(corpus), queries_frame({"1": "flow"}), TEXT_ONLY, "bim")
    assert list(run["docno"]) == ["9", "2", "100", "10"]


def test_topics_in_plain_string_order():
    queries = queries_frame({"10": "wing", "9": "wing", "1": "wing"})
    run = retrieve(docs_frame(CORPUS), queries, TEXT_ONLY, "bim")
    assert list(run["topic"].drop_duplicates()) == ["1", "10", "9"]
    assert list(run["tag"].unique()) == ["bim"]


def test_depth_cuts_each_topic():
    queries = queries_frame({"1": "wing", "2": "shock"})
    run = retrieve(docs_frame(CORPUS), queries, TEXT_ONLY, "bm25", depth=2, scope="all")
    assert run.groupby("topic").size().to_dict() == {"1": 2, "2": 2}
    assert list(run["rank"]) == [1, 2, 1, 2]


def test_scope_matching_and_all():
    flow = math.log(3.5 / 1.5)
    assert ranking("bim", "flow") == [("d1", flow)]
    assert ranking("bim", "flow", scope="all") == [
        ("d1", flow),
        ("d4", 0.0),
        ("d3", 0.0),
        ("d2", 0.0),
    ]


def test_query_without_matching_term():
    queries = queries_frame({"1": "wing", "2": "supersonic"})
    matching = retrieve(docs_frame(CORPUS), queries, TEXT_ONLY, "tfidf")
    assert set(matching["topic"]) == {"1"}
    every = retrieve(docs_frame(CORPUS), queries, TEXT_ONLY, "tfidf", scope="all")
    second = every[every["topic"] == "2"]
    assert list(second["docno"]) == ["d4", "d3", "d2", "d1"]
    assert list(second["score"]) == [0.0] * 4


@pytest.mark.parametrize(
    ("model", "params", "named"),
    [
        ("bm25", {"k2": 1.0}, ["'k2'", "bm25"]),
        ("bim", {"k1": 1.2}, ["'k1'", "bim"]),
        ("tfidf", {"smart": "lnc.ltc"}, ["'smart'", "tfidf"]),
        ("bm25", {"b": 2.0}, ["b", "bm25", "2.0"]),
        ("bm25", {"k1": "1.2"}, ["k1", "bm25"]),
    ],
)
def test_params_reject_unknown_keys_and_bad_values(model, params, named):
    with pytest.raises(ValueError) as err:
        make_retriever(model, params)
    for word in named:
        assert word in str(err.value)


def test_unknown_model_and_bad_options():
    with pytest.raises(ValueError, match="unknown retriever model 'lm'"):
        make_retriever("lm")
    docs, queries = docs_frame(CORPUS), queries_frame({"1": "wing"})
    with pytest.raises(ValueError, match="depth"):
        retrieve(docs, queries, TEXT_ONLY, "bim", depth=0)
    with pytest.raises(ValueError, match="scope"):
        retrieve(docs, queries, TEXT_ONLY, "bim", scope="some")
    with pytest.raises(ValueError, match="duplicate docno 'd1'"):
        retrieve(pd.concat([docs, docs]), queries, TEXT_ONLY, "bim")


def test_retriever_spec_names_the_run_and_key():
    with pytest.raises(ValueError, match=r"retrievers\.fast: unknown key 'k1'"):
        RetrieverSpec.from_config("fast", {"model": "bm25", "k1": 1.2})
    with pytest.raises(ValueError, match=r"retrievers\.fast: .*'k3'"):
        RetrieverSpec.from_config("fast", {"model": "bm25", "params": {"k3": 1}})
    spec = RetrieverSpec.from_config("fast", {"model": "bm25", "params": {"k1": 0.9}})
    assert spec.params == {"k1": 0.9, "b": 0.75, "epsilon": 0.25}
    assert (spec.depth, spec.scope) == (1000, "matching")


def test_retrieve_to_files_writes_run_and_manifest(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"docno": d, "text": t, "title": ""}) + "\n" for d, t in CORPUS.items())
    )
    queries = tmp_path / "queries.tsv"
    queries.write_text("1\twing flow\n2\tsupersonic\n")
    outputs = []
    for attempt in ("a", "b"):
        run, manifest = tmp_path / f"{attempt}.run", tmp_path / f"{attempt}.json"
        retrieve_to_files(
            docs=docs,
            queries=queries,
            run=run,
            manifest=manifest,
            name="bm25-flat",
            spec={"model": "bm25", "params": {"b": 0.0}, "depth": 2},
            analyzer={"fields": ["title", "text"]},
        )
        outputs.append((run.read_bytes(), manifest.read_bytes()))
    assert outputs[0] == outputs[1]
    table = read_run(tmp_path / "a.run")
    assert list(table["docno"]) == ["d1", "d4"]
    assert set(table["tag"]) == {"bm25-flat"}
    content = json.loads(outputs[0][1])
    assert content["params"] == {"b": 0.0, "epsilon": 0.25, "k1": 1.2}
    assert content["counts"]["topics_without_lines"] == ["2"]
    assert content["analyzer"]["fields"] == ["title", "text"]
    assert (content["depth"], content["scope"], content["model"]) == (2, "matching", "bm25")


# Contract tests: every registered model honours the interface.
QUERIES = [["wing", "flow"], ["shock"], ["supersonic"], []]


@pytest.fixture(scope="module")
def index() -> TermIndex:
    return TermIndex.build([TEXT_ONLY.tokens(text) for text in CORPUS.values()])


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_contract_naming_and_params(name):
    cls = REGISTRY[name]
    assert cls.name == name
    assert cls.__module__ == f"irscore.pipeline.retrievers.{name}"  # workflow rules rely on this
    params = cls.from_config(None).params
    assert dataclasses.is_dataclass(params) and cls.params_class.__dataclass_params__.frozen
    with pytest.raises(ValueError, match=f"retriever {name}: unknown parameter 'nope'"):
        cls.from_config({"nope": 1})


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_contract_scores(name, index):
    scores = make_retriever(name).score(index, QUERIES)
    assert scores.shape == (len(QUERIES), index.n_docs)
    assert scores.dtype == np.float64 and np.isfinite(scores).all()
    shares_no_term = ~index.matches(QUERIES)
    if REGISTRY[name].zero_without_match:
        assert (scores[shares_no_term] == 0.0).all()
    else:  # a log-likelihood: at most 0, and 0 only for a query with no known term
        known = np.asarray(index.query_counts(QUERIES).sum(axis=1)).ravel() > 0
        assert (scores[shares_no_term & known[:, None]] < 0.0).all()
        assert (scores[~known] == 0.0).all()
    np.testing.assert_array_equal(scores, make_retriever(name).score(index, QUERIES))


MODEL_FILE = '''
from irscore.pipeline.retrievers.base import Retriever


class Count(Retriever):
    """How many query tokens the document holds."""

    name = "{name}"

    def score(self, index, queries):
        return (index.query_counts(queries) @ index.counts.T).toarray().astype(float)
'''


def test_a_model_is_found_from_its_own_file_alone(tmp_path, monkeypatch, index):
    import irscore.pipeline.retrievers as package

    (tmp_path / "countq.py").write_text(MODEL_FILE.format(name="countq"))
    (tmp_path / "misnamed.py").write_text(MODEL_FILE.format(name="other"))
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    assert "countq" in REGISTRY and "countq" in list(REGISTRY)
    # "wing" is in the corpus: some document holds it at least once
    scores = make_retriever("countq").score(index, [["wing"]])
    assert scores.shape == (1, index.n_docs) and scores.max() >= 1
    with pytest.raises(ValueError, match=r"misnamed.py: expected one Retriever subclass"):
        make_retriever("misnamed")
    with pytest.raises(ValueError, match=r"unknown retriever model 'nope' \(known: bim, "):
        make_retriever("nope")
