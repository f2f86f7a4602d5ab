"""irscore as an ir_measures provider: `ir_measures.calc_aggregate`, `ir_measures.iter_calc`
(and through them PyTerrier's `pt.Experiment`) scoring with irscore.

ir_measures 0.4.3 selects a provider the way its own are selected: by name in
`ir_measures.providers.registry` (and as an attribute, `ir_measures.pytrec_eval`), and
for its module-level functions by the order of `ir_measures.DefaultPipeline.providers`,
the first that supports a measure computing it. `register()` does the first two
(`ir_measures.irscore`); `register(default=True)` also puts irscore first in that order.
A measure is supported when irscore reads its name (`str(measure)`, ir_measures'
spelling) as its own or as ir_measures' (docs/measure-names.md): the value is the one
of the provider ir_measures would otherwise use, under that provider's convention.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures import Metric
from ir_measures.providers.base import Evaluator, Provider
from ir_measures.util import QrelsConverter, RunConverter

NAME = "irscore"


def _reads(name: str) -> bool:
    """True when irscore reads the measure name (in any syntax it knows)."""
    from irscore.engine.measures import MeasureError
    from irscore.engine.measures.groups import plan

    try:
        plan([name])
    except MeasureError:
        return False
    return True


class IrscoreEvaluator(Evaluator):
    """ir_measures' Evaluator over irscore: the qrels read once, each run scored by
    `irscore.evaluate` with the measures' names as ir_measures prints them."""

    def __init__(self, measures: Iterable[Any], qrels: Any):
        import pandas as pd

        self.names = {str(m): m for m in measures}
        frame = QrelsConverter(qrels).as_pd_dataframe()
        diversity = any(_is_diversity(m) for m in self.names.values())
        if diversity and "iteration" in frame.columns:  # ir_measures' subtopic column
            frame = frame.rename(columns={"iteration": "subtopic"})
        columns = ["query_id", "doc_id", "relevance"] + (["subtopic"] if diversity else [])
        self.qrels = pd.DataFrame(frame[[c for c in columns if c in frame.columns]])
        super().__init__(list(self.names.values()), set(self.qrels["query_id"].astype(str)))

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """The values irscore gives, then the measure's default (0) for each qrels topic
        without one, as ir_measures' Evaluator does, but for Accuracy, whose provider
        leaves a topic without a relevant document out."""
        seen = set()
        for metric in self._iter_calc(run):
            seen.add((metric.measure, metric.query_id))
            yield metric
        for measure in sorted(self.measures, key=str):
            if measure.NAME != "Accuracy":
                for topic in sorted(self.qrel_qids):
                    if (measure, topic) not in seen:
                        yield Metric(query_id=topic, measure=measure, value=measure.DEFAULT)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        import irscore

        frame = RunConverter(run).as_pd_dataframe()[["query_id", "doc_id", "score"]]
        table = irscore.evaluate(self.qrels, frame, measures=list(self.names))
        rows = table[(table["topic"] != "all") & table["value"].notna()]  # NaN: no value
        for topic, name, value in zip(rows["topic"], rows["measure"], rows["value"], strict=True):
            yield Metric(query_id=str(topic), measure=self.names[str(name)], value=float(value))


def _is_diversity(measure: Any) -> bool:
    return measure.NAME in {"ERR_IA", "alpha_nDCG", "NRBP", "P_IA", "StRecall"}


class IrscoreProvider(Provider):
    """The provider: every measure irscore reads in ir_measures' spelling."""

    NAME = NAME

    def supports(self, measure: Any) -> bool:
        measure.validate_params()
        return _reads(str(measure))

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> IrscoreEvaluator:
        return IrscoreEvaluator(measures, qrels)

    def install_instructions(self) -> str:
        return "pip install irscore"


def register(default: bool = False) -> IrscoreProvider:
    """The provider, registered with ir_measures as `irscore` (`ir_measures.irscore`,
    `ir_measures.providers.registry["irscore"]`); with `default`, first in
    `ir_measures.DefaultPipeline`, so that `ir_measures.calc_aggregate`,
    `ir_measures.iter_calc` and `ir_measures.evaluator` score with irscore. Registering
    again returns the provider registered before."""
    provider = ir_measures.providers.registry.get(NAME)
    if not isinstance(provider, IrscoreProvider):
        provider = ir_measures.providers.register(IrscoreProvider())
    ir_measures.irscore = provider
    pipeline = ir_measures.DefaultPipeline.providers
    if default and pipeline[:1] != [provider]:
        pipeline[:] = [provider, *(p for p in pipeline if p is not provider)]
    return provider


def unregister() -> None:
    """Undo `register`: ir_measures' own providers only, in their own order."""
    provider = ir_measures.providers.registry.pop(NAME, None)
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if p is not provider]
    if provider is not None and getattr(ir_measures, NAME, None) is provider:
        delattr(ir_measures, NAME)
