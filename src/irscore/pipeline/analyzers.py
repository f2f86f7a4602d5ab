"""Text analyzers: fields, case, tokens, stopwords, stems.

An `Analyzer` turns a run's documents and queries into terms the same way;
config names several (`analyzers:`) and each retriever picks one, so runs
differ only by what their config says. Every choice is recorded by
`describe()` in each run's manifest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from importlib.metadata import version
from typing import Any

import Stemmer
import stop_words

# Config name -> PyStemmer algorithm.
PYSTEMMERS = {"porter": "porter", "snowball-english": "english"}
# NLTK's PorterStemmer() in its default mode (NLTK_EXTENSIONS); it needs no downloaded data.
NLTK_PORTER = "nltk_porter"
STEMMERS = (*PYSTEMMERS, NLTK_PORTER)
# The token_pattern value that means Python's str.split(): whitespace, punctuation kept.
SPLIT = "split"


@dataclass(frozen=True)
class Analyzer:
    """Lowercase (optional), find tokens by regex (or split on whitespace), drop stopwords, stem.

    `token_pattern` is a regex whose matches are the tokens, or "split" for
    `str.split()`. `stopwords` is None, the name of a list shipped by the
    `stop-words` package (e.g. "english"), or an explicit tuple of words.
    Stopwords are compared after lowercasing and before stemming. `stemmer` is
    None, "porter" or "snowball-english" (PyStemmer), or "nltk_porter" (NLTK's
    PorterStemmer() in its default mode). `fields` are the document fields
    joined by one space to form a document's text.
    """

    lowercase: bool = True
    token_pattern: str = "[a-z0-9]+"
    stopwords: str | tuple[str, ...] | None = None
    stemmer: str | None = None
    fields: tuple[str, ...] = ("title", "text")
    _regex: re.Pattern | None = field(init=False, repr=False, compare=False)
    _stopset: frozenset[str] = field(init=False, repr=False, compare=False)
    _stem: Callable[[list[str]], list[str]] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_type("lowercase", self.lowercase, bool)
        _check_type("token_pattern", self.token_pattern, str)
        try:
            regex = None if self.token_pattern == SPLIT else re.compile(self.token_pattern)
        except re.error as err:
            raise ValueError(f"analyzer: token_pattern {self.token_pattern!r}: {err}") from None
        if not self.fields or not all(isinstance(f, str) and f for f in self.fields):
            raise ValueError(f"analyzer: fields must be non-empty field names, got {self.fields!r}")
        if self.stemmer is not None and self.stemmer not in STEMMERS:
            raise ValueError(
                f"analyzer: unknown stemmer {self.stemmer!r} (known: None, {', '.join(STEMMERS)})"
            )
        object.__setattr__(self, "_regex", regex)
        object.__setattr__(self, "_stopset", frozenset(self._stopword_list()))
        object.__setattr__(self, "_stem", _stemmer(self.stemmer))

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> Analyzer:
        """Build from the config's `analyzer` mapping; an unknown key is an error naming it."""
        config = dict(config or {})
        known = [f.name for f in fields(cls) if f.init]
        for key in config:
            if key not in known:
                raise ValueError(f"analyzer: unknown key {key!r} (known: {', '.join(known)})")
        if isinstance(config.get("stopwords"), list):
            config["stopwords"] = tuple(config["stopwords"])
        if "fields" in config:
            if not isinstance(config["fields"], list | tuple):
                raise ValueError(f"analyzer: fields must be a list, got {config['fields']!r}")
            config["fields"] = tuple(config["fields"])
        return cls(**config)

    def tokens(self, text: str) -> list[str]:
        """The terms of one text, in order, repeats kept."""
        if self.lowercase:
            text = text.lower()
        tokens = text.split() if self._regex is None else self._regex.findall(text)
        if self._stopset:
            tokens = [t for t in tokens if t not in self._stopset]
        if self._stem is not None:
            tokens = self._stem(tokens)
        return tokens

    def document_text(self, doc: Mapping[str, Any]) -> str:
        """The configured fields of one document joined by a space."""
        missing = [f for f in self.fields if f not in doc]
        if missing:
            raise ValueError(f"analyzer: no field {missing[0]!r} in document fields {list(doc)}")
        return " ".join(str(doc[f]) for f in self.fields)

    def describe(self) -> dict[str, Any]:
        """Every choice, JSON-ready, for a run's manifest."""
        if self.stopwords is None:
            stopwords = None
        elif isinstance(self.stopwords, str):
            stopwords = {
                "name": self.stopwords,
                "source": f"stop-words {version('stop-words')}",
                "count": len(self._stopset),
            }
        else:
            stopwords = {"source": "config", "words": sorted(self._stopset)}
        stemmer = None
        if self.stemmer == NLTK_PORTER:
            stemmer = {
                "name": self.stemmer,
                "algorithm": f"PorterStemmer(mode={_nltk_porter_stemmer().mode!r})",
                "source": f"nltk {version('nltk')}",
            }
        elif self.stemmer is not None:
            stemmer = {
                "name": self.stemmer,
                "algorithm": PYSTEMMERS[self.stemmer],
                "source": f"PyStemmer {version('PyStemmer')}",
            }
        return {
            "fields": list(self.fields),
            "lowercase": self.lowercase,
            "stemmer": stemmer,
            "stopwords": stopwords,
            "token_pattern": self.token_pattern,
        }

    def _stopword_list(self) -> Sequence[str]:
        if self.stopwords is None:
            return ()
        if isinstance(self.stopwords, str):
            try:
                return stop_words.get_stop_words(self.stopwords)
            except stop_words.StopWordError:
                raise ValueError(
                    f"analyzer: unknown stopwords list {self.stopwords!r} "
                    f"(stop-words ships: {', '.join(sorted(stop_words.AVAILABLE_LANGUAGES))})"
                ) from None
        if isinstance(self.stopwords, tuple) and all(isinstance(w, str) for w in self.stopwords):
            return self.stopwords
        raise ValueError(
            f"analyzer: stopwords must be null, a list name or a list of words, "
            f"got {self.stopwords!r}"
        )


def _stemmer(name: str | None) -> Callable[[list[str]], list[str]] | None:
    """The configured stemmer as a function of a token list (None: no stemming)."""
    if name is None:
        return None
    if name == NLTK_PORTER:
        return _nltk_porter_words
    return Stemmer.Stemmer(PYSTEMMERS[name]).stemWords


@cache
def _nltk_porter_stemmer() -> Any:
    """NLTK's PorterStemmer() in its default mode, imported on first use: importing nltk
    takes seconds, which every other analyzer (and Snakemake's parse) should not pay."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@cache
def _nltk_porter(word: str) -> str:
    """One word through NLTK's PorterStemmer(); cached, as it is slow and words repeat."""
    return _nltk_porter_stemmer().stem(word)


def _nltk_porter_words(tokens: list[str]) -> list[str]:
    return [_nltk_porter(token) for token in tokens]


def _check_type(key: str, value: Any, expected: type) -> None:
    if not isinstance(value, expected):
        raise ValueError(f"analyzer: {key} must be {expected.__name__}, got {value!r}")
