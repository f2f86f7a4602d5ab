"""The two published experiments' analyzers and scoring, pinned on tiny hand-made documents.

Each analyzer and retriever is read from config.yaml, so a change to the
experiments' config shows here; the arithmetic is written out in each test.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.retrieve import RetrieverSpec, retrieve, retrieve_to_files

CONFIG = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
# Lucene's default English stop set, as the issue lists it.
LUCENE_STOP_SET = (
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with"
)


def analyzer(name: str) -> Analyzer:
    return Analyzer.from_config(CONFIG["analyzers"][name])


def ranking(run: str, docs: dict[str, tuple[str, str]], query: str) -> list[tuple[str, float]]:
    """(docno, score) in rank order: the configured retriever `run` on (title, text) docs."""
    spec = RetrieverSpec.from_config(run, CONFIG["retrievers"][run])
    frame = retrieve(
        pd.DataFrame(
            {
                "docno": list(docs),
                "title": [title for title, _ in docs.values()],
                "text": [text for _, text in docs.values()],
            }
        ),
        pd.DataFrame({"topic": ["1"], "text": [query]}),
        analyzer(spec.analyzer),
        spec.model,
        spec.params,
        depth=spec.depth,
        scope=spec.scope,
    )
    return list(zip(frame["docno"], frame["score"], strict=True))


def assert_ranking(actual: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert [d for d, _ in actual] == [d for d, _ in expected]
    for (_, got), (_, want) in zip(actual, expected, strict=True):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# textbook: title + " " + abstract (which repeats the title); after the analyzer
#   1: wing flow wing flow flow over wing steadi   (tf wing 3, flow 3, over 1, steadi 1; 8 tokens)
#   2: shock wave shock wave shock wave flow       (shock 3, wave 3, flow 1; 7 tokens)
#   3: heat heat heat transfer flow                (heat 3, transfer 1, flow 1; 5 tokens)
# N = 3; df: flow 3, every other term 1. The query "Wing flow over wings and heat"
# analyzes to wing flow over wing heat.
TEXTBOOK_DOCS = {
    "1": ("Wing flow", "wing flow. the flow over a wing is steady."),
    "2": ("Shock waves", "shock waves. shock waves in the flow."),
    "3": ("Heat", "heat. heat transfer and flows."),
}
TEXTBOOK_QUERY = "Wing flow over wings and heat"


def test_textbook_analyzer_lucene_stop_set_and_nltk_porter():
    textbook = analyzer("textbook")
    stop_set = LUCENE_STOP_SET.split(" ")
    assert sorted(CONFIG["analyzers"]["textbook"]["stopwords"]) == sorted(stop_set)
    assert len(stop_set) == 33
    # \w+ splits at the apostrophe and hyphen; "the", "a", "are", "and", "it", "not",
    # "such" are stopped; NLTK's Porter keeps the short "s" and maps body -> bodi.
    text = "The Flow's over a wing-body: flows are 2x faster, and it's not such"
    assert textbook.tokens(text) == [
        "flow",
        "s",
        "over",
        "wing",
        "bodi",
        "flow",
        "2x",
        "faster",
        "s",
    ]
    # NLTK's default mode (NLTK_EXTENSIONS) differs from the original Porter (PyStemmer):
    assert textbook.tokens("dying skies news s") == ["die", "sky", "news", "s"]
    assert Analyzer(stemmer="porter").tokens("dying skies news s") == ["dy", "ski", "new", ""]
    assert textbook.describe()["stemmer"]["algorithm"] == "PorterStemmer(mode='NLTK_EXTENSIONS')"
    assert textbook.document_text({"title": "Wing", "text": "wing flow"}) == "Wing wing flow"


def test_lab_analyzers_split_and_word_tokens():
    # str.lower().split(): punctuation stays attached, nothing is stopped or stemmed.
    assert analyzer("lab").tokens("Flow, over the Wing. (M=2)") == [
        "flow,",
        "over",
        "the",
        "wing.",
        "(m=2)",
    ]
    assert analyzer("lab_word").tokens("Flow, over the Wing. (M=2)") == [
        "flow",
        "over",
        "the",
        "wing",
        "m",
        "2",
    ]


def test_sklearn_analyzer_is_countvectorizers():
    from sklearn.feature_extraction.text import TfidfVectorizer

    text = "The Flow's over a wing-body at M=2.5: heat-transfer 1958 x y, Über-Mach"
    assert analyzer("sklearn").tokens(text) == TfidfVectorizer().build_analyzer()(text)


def test_textbook_bim_by_hand():
    def w(n):  # ln((N - n + 0.5) / (n + 0.5)), N = 3
        return math.log((3 - n + 0.5) / (n + 0.5))

    # distinct query terms in the document; flow (in all 3) weighs negatively
    expected = [
        ("1", w(1) + w(3) + w(1)),  # wing, flow, over
        ("3", w(1) + w(3)),  # heat, flow
        ("2", w(3)),  # flow
    ]
    assert_ranking(ranking("textbook_bim", TEXTBOOK_DOCS, TEXTBOOK_QUERY), expected)


def test_textbook_tfidf_lnc_ltc_log10_by_hand():
    lg = math.log10
    # documents lnc: 1 + log10 tf, no idf, cosine
    d1 = {"wing": 1 + lg(3), "flow": 1 + lg(3), "over": 1.0, "steadi": 1.0}
    d3 = {"heat": 1 + lg(3), "transfer": 1.0, "flow": 1.0}
    # query ltc: (1 + log10 qtf) log10(N / df); flow has df = N: weight 0
    q = {"wing": (1 + lg(2)) * lg(3), "flow": 0.0, "over": lg(3), "heat": lg(3)}

    def cosine(d):
        dot = sum(q.get(t, 0.0) * v for t, v in d.items())
        return (
            dot
            / math.sqrt(sum(v * v for v in d.values()))
            / math.sqrt(sum(v * v for v in q.values()))
        )

    # document 2 shares only flow (weight 0): retrieved, as it matches, with score 0
    expected = [("1", cosine(d1)), ("3", cosine(d3)), ("2", 0.0)]
    assert_ranking(ranking("textbook_tfidf", TEXTBOOK_DOCS, TEXTBOOK_QUERY), expected)


def test_textbook_bm25_lucene_idf_and_length_after_stopping_by_hand():
    k1, b, avgdl = 1.2, 0.75, (8 + 7 + 5) / 3  # lengths count tokens after stopping

    def idf(n):  # Lucene: ln(1 + (N - n + 0.5) / (n + 0.5))
        return math.log(1 + (3 - n + 0.5) / (n + 0.5))

    def part(n, tf, length):
        return idf(n) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl))

    # the query has wing twice: it counts twice
    d1 = 2 * part(1, 3, 8) + part(3, 3, 8) + part(1, 1, 8)  # wing x2, flow, over
    d2 = part(3, 1, 7)  # flow
    d3 = part(1, 3, 5) + part(3, 1, 5)  # heat, flow
    expected = [("1", d1), ("3", d3), ("2", d2)]
    assert_ranking(ranking("textbook_bm25", TEXTBOOK_DOCS, TEXTBOOK_QUERY), expected)


# lab: title + " " + abstract, lowercased and split on whitespace
#   1: wing flow wing flow. flow over a wing.   (wing 2, flow 2, flow. 1, over 1, a 1, wing. 1)
#   2: shock shock. a shock in flow.            (shock 2, shock. 1, a 1, in 1, flow. 1)
#   3: heat heat. heat in a wing                (heat 2, heat. 1, in 1, a 1, wing 1)
# Lengths 8, 6, 6; N = 3. df 1: flow, over, wing., shock, shock., heat, heat. (7 terms);
# df 2: wing, flow., in (3 terms); df 3: a.
LAB_DOCS = {
    "1": ("Wing flow", "wing flow. flow over a wing."),
    "2": ("Shock", "shock. a shock in flow."),
    "3": ("Heat", "heat. heat in a wing"),
}


def test_lab_bm25_rank_bm25_defaults_by_hand():
    k1, b, avgdl = 1.5, 0.75, (8 + 6 + 6) / 3
    raw = {n: math.log(3 - n + 0.5) - math.log(n + 0.5) for n in (1, 2, 3)}
    # rank_bm25 floors a negative idf (df 2 and 3 here) at 0.25 x the mean idf of all 11 terms
    floor = 0.25 * (7 * raw[1] + 3 * raw[2] + raw[3]) / 11

    def part(tf, length):
        return floor * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl))

    # "flow?" keeps its question mark and matches nothing; "wing." is not "wing"
    expected = [("1", part(2, 8)), ("3", part(1, 6)), ("2", 0.0)]
    assert_ranking(ranking("lab_bm25", LAB_DOCS, "Wing flow?"), expected)


def test_lab_tfidf_sklearn_defaults_by_hand():
    # sklearn's tokens drop one-letter words and punctuation:
    #   1: wing 3, flow 3, over 1   2: shock 3, in 1, flow 1   3: heat 3, in 1, wing 1
    idf1, idf2 = math.log(4 / 2) + 1, math.log(4 / 3) + 1  # ln((1 + N) / (1 + df)) + 1
    # query "wing flow": both df 2, so after normalising each weighs 1 / sqrt(2)
    d1 = (3 * idf2 + 3 * idf2) / math.sqrt(2) / math.sqrt(18 * idf2**2 + idf1**2)
    d2 = d3 = idf2 / math.sqrt(2) / math.sqrt(9 * idf1**2 + 2 * idf2**2)
    expected = [("1", d1), ("3", d3), ("2", d2)]
    assert_ranking(ranking("lab_tfidf", LAB_DOCS, "Wing flow?"), expected)


def test_lab_runs_top_100_of_all_documents_with_8_decimals(tmp_path):
    docs, queries = tmp_path / "docs.jsonl", tmp_path / "queries.tsv"
    docs.write_text(
        pd.DataFrame(
            [{"docno": d, "title": t, "text": x} for d, (t, x) in LAB_DOCS.items()]
        ).to_json(orient="records", lines=True)
    )
    queries.write_text("1\tWing flow?\n2\tsupersonic\n")
    for name in ("lab_bm25", "lab_bm25_word", "lab_tfidf"):
        spec = CONFIG["retrievers"][name]
        assert (spec["depth"], spec["scope"], spec["score_format"]) == (100, "all", ".8f")
        run = tmp_path / f"{name}.run"
        manifest = retrieve_to_files(
            docs=docs,
            queries=queries,
            run=run,
            manifest=tmp_path / f"{name}.json",
            name=name,
            spec=spec,
            analyzer=CONFIG["analyzers"][spec["analyzer"]],
        )
        lines = run.read_text().splitlines()
        assert len(lines) == 6  # every document for each query, a no-match query included
        scores = [line.split()[4] for line in lines]
        assert all(len(s.partition(".")[2]) == 8 for s in scores), scores
        assert lines[-1] == f"2 Q0 1 3 0.00000000 {name}"
        assert manifest["score_format"] == ".8f"
        assert manifest["analyzer"]["name"] == spec["analyzer"]


def test_lab_tfidf_prints_as_tfidfvectorizer_on_cranfield(cranfield):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    from irscore.pipeline.exports import read_docs, read_queries
    from irscore.pipeline.retrievers import TermIndex, make_retriever

    docs, queries = read_docs(cranfield / "docs.jsonl"), read_queries(cranfield / "queries.tsv")
    sklearn = analyzer("sklearn")
    texts = [sklearn.document_text(d) for d in docs.to_dict("records")]
    vectorizer = TfidfVectorizer()
    matrix = vectorizer.fit_transform(texts)
    theirs = cosine_similarity(vectorizer.transform(list(queries["text"])), matrix)
    index = TermIndex.build([sklearn.tokens(t) for t in texts])
    query_tokens = [sklearn.tokens(q) for q in queries["text"]]
    ours = make_retriever("sklearn_tfidf").score(index, query_tokens)
    assert list(index.terms) == list(vectorizer.get_feature_names_out())
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-15)
    as_printed = np.vectorize(lambda x: f"{x:.8f}")
    assert (as_printed(ours) == as_printed(theirs)).all()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"model": "bm25", "score_format": "%d"}, "score_format must be 'repr' or a float"),
        ({"model": "bm25", "score_format": ">20.8f"}, "no padding"),
        ({"model": "bm25", "analyzer": ""}, "analyzer must be the name of an analyzer"),
        ({"model": "tfidf", "params": {"weighting": "ltx.ltc"}}, "weighting must be SMART"),
        ({"model": "tfidf", "params": {"log": "log2"}}, "log must be one of ln, log10"),
        ({"model": "bm25_lucene", "params": {"epsilon": 0.25}}, "unknown parameter 'epsilon'"),
    ],
)
def test_experiment_options_are_checked(entry, message):
    with pytest.raises(ValueError, match=message):
        RetrieverSpec.from_config("run", entry)


def test_every_configured_retriever_names_a_configured_analyzer():
    for name, entry in CONFIG["retrievers"].items():
        spec = RetrieverSpec.from_config(name, entry)
        assert spec.analyzer in CONFIG["analyzers"], name
    # the default runs keep today's analyzer, so their numbers do not change
    assert CONFIG["analyzers"]["default"] == {
        "lowercase": True,
        "token_pattern": "[a-z0-9]+",
        "stopwords": "english",
        "stemmer": "porter",
        "fields": ["title", "text"],
    }
