"""The analyzer: each config choice and the errors naming a wrong key."""

from __future__ import annotations

import dataclasses

import pytest

from irscore.pipeline.analyzers import Analyzer


def test_defaults_lowercase_alphanumeric_tokens():
    analyzer = Analyzer.from_config(None)
    assert analyzer.tokens("The Flow, over 2 WINGS at M=2.5!") == [
        "the",
        "flow",
        "over",
        "2",
        "wings",
        "at",
        "m",
        "2",
        "5",
    ]
    assert analyzer == Analyzer()


def test_named_stopword_list():
    analyzer = Analyzer.from_config({"stopwords": "english"})
    assert analyzer.tokens("what is the flow over a wing") == ["flow", "wing"]
    assert analyzer.describe()["stopwords"]["name"] == "english"
    assert analyzer.describe()["stopwords"]["source"].startswith("stop-words ")


def test_explicit_stopword_list_applies_before_stemming():
    analyzer = Analyzer.from_config({"stopwords": ["flows", "the"], "stemmer": "porter"})
    assert analyzer.tokens("the flows flow") == ["flow"]
    assert analyzer.describe()["stopwords"] == {"source": "config", "words": ["flows", "the"]}


@pytest.mark.parametrize(
    ("stemmer", "expected"),
    [
        (None, ["generously", "flows"]),
        ("porter", ["gener", "flow"]),
        ("snowball-english", ["generous", "flow"]),
    ],
)
def test_stemmers(stemmer, expected):
    assert Analyzer(stemmer=stemmer).tokens("generously flows") == expected


def test_token_pattern_and_case():
    assert Analyzer(token_pattern="[a-z]+").tokens("mach 2 flow") == ["mach", "flow"]
    assert Analyzer(lowercase=False, token_pattern="[A-Za-z]+").tokens("Mach flow") == [
        "Mach",
        "flow",
    ]


def test_document_text_joins_fields():
    doc = {"title": "wing", "text": "wing flow", "author": "smith"}
    assert Analyzer().document_text(doc) == "wing wing flow"
    assert Analyzer(fields=("author",)).document_text(doc) == "smith"
    with pytest.raises(ValueError, match="no field 'bib'"):
        Analyzer(fields=("bib",)).document_text(doc)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"stemer": "porter"}, "unknown key 'stemer'"),
        ({"stemmer": "lovins"}, "unknown stemmer 'lovins'"),
        ({"stopwords": "klingon"}, "unknown stopwords list 'klingon'"),
        ({"stopwords": 3}, "stopwords must be"),
        ({"token_pattern": "[a-"}, "token_pattern '\\[a-'"),
        ({"lowercase": "yes"}, "lowercase must be bool"),
        ({"fields": "text"}, "fields must be a list"),
        ({"fields": []}, "fields must be non-empty"),
    ],
)
def test_config_errors_name_the_problem(config, message):
    with pytest.raises(ValueError, match=message):
        Analyzer.from_config(config)


def test_describe_records_every_choice_and_is_frozen():
    analyzer = Analyzer.from_config({"stopwords": "english", "stemmer": "snowball-english"})
    described = analyzer.describe()
    assert set(described) == {"fields", "lowercase", "stemmer", "stopwords", "token_pattern"}
    assert described["stemmer"]["algorithm"] == "english"
    assert described["stopwords"]["count"] > 100
    with pytest.raises(dataclasses.FrozenInstanceError):
        analyzer.lowercase = False
