"""Retrieval models, one per module, found by name: model NAME is the `Retriever` subclass
defined in `retrievers/NAME.py` whose `name` is NAME.

Adding a model is writing that one file: no list of models has to be edited, so a new
model changes no file that the other models' runs depend on (the workflow re-runs a
retrieval when its own model's file, base.py, index.py or this module change).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any

from irscore.pipeline.retrievers.base import Params, Retriever
from irscore.pipeline.retrievers.index import TermIndex

__all__ = ["REGISTRY", "Params", "Retriever", "TermIndex", "make_retriever", "model_class"]
NOT_MODELS = frozenset({"base", "index"})


def model_names() -> list[str]:
    """Every model: the modules of this package but the shared ones, sorted."""
    return sorted(
        module.name
        for module in pkgutil.iter_modules(__path__)
        if module.name not in NOT_MODELS and not module.name.startswith("_")
    )


def model_class(model: str) -> type[Retriever]:
    """The `Retriever` subclass named `model`, from its own module."""
    known = model_names()
    if model not in known:
        raise ValueError(f"unknown retriever model {model!r} (known: {', '.join(known)})")
    module = import_module(f"{__name__}.{model}")
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Retriever)
        and value.__module__ == module.__name__
        and getattr(value, "name", None) == model
    ]
    if len(found) != 1:
        raise ValueError(
            f"{module.__file__}: expected one Retriever subclass with name = {model!r}, "
            f"found {len(found)}"
        )
    return found[0]


class _Registry(Mapping[str, type[Retriever]]):
    """{model name: class}, read from the package's modules when asked."""

    def __getitem__(self, model: str) -> type[Retriever]:
        if model not in self:
            raise KeyError(model)
        return model_class(model)

    def __contains__(self, model: object) -> bool:
        return model in model_names()

    def __iter__(self) -> Iterator[str]:
        return iter(model_names())

    def __len__(self) -> int:
        return len(model_names())


REGISTRY: Mapping[str, type[Retriever]] = _Registry()


def make_retriever(model: str, params: Mapping[str, Any] | None = None) -> Retriever:
    """The named model with its parameters validated."""
    return model_class(model).from_config(params)
