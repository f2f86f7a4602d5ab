"""The retriever interface: a named model with frozen, self-validating parameters."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from irscore.pipeline.retrievers.index import TermIndex


@dataclasses.dataclass(frozen=True)
class Params:
    """Base of each model's parameters; subclasses are frozen dataclasses."""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class Retriever(ABC):
    """Scores every document of a `TermIndex` for a batch of analyzed queries.

    A model sets `name` and `params_class` and implements `score`; the
    registry in `irscore.pipeline.retrievers` maps the name to the class.
    """

    name: ClassVar[str]
    params_class: ClassVar[type[Params]] = Params
    # True when a document sharing no term with the query scores exactly 0.
    zero_without_match: ClassVar[bool] = True

    def __init__(self, params: Params | None = None):
        self.params = params if params is not None else self.params_class()

    @classmethod
    def from_config(cls, params: Mapping[str, Any] | None) -> Retriever:
        """Build from a config mapping; an unknown key is an error naming it and the model."""
        return cls(make_params(cls.params_class, params, cls.name))

    @abstractmethod
    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """A (n_queries, n_docs) float64 array of scores."""


def make_params(cls: type[Params], values: Mapping[str, Any] | None, model: str) -> Params:
    """Instantiate a params dataclass from a mapping, rejecting unknown keys by name."""
    values = dict(values or {})
    known = [f.name for f in dataclasses.fields(cls)]
    for key in values:
        if key not in known:
            listed = ", ".join(known) if known else "none"
            raise ValueError(f"retriever {model}: unknown parameter {key!r} (known: {listed})")
    return cls(**values)


def check_number(model: str, key: str, value: Any, low: float, high: float = float("inf")) -> None:
    """Raise unless `value` is a real number (not a bool) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(
            f"retriever {model}: parameter {key} must be a number in [{low}, {high}], got {value!r}"
        )
