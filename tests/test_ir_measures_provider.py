"""irscore as an ir_measures provider (irscore.ir_measures_provider): selected the way
ir_measures selects its own, and giving the values of ir_measures' default providers on
generated runs with tied scores, unjudged documents, negative grades, judged topics
without results and run topics without judgments."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ir_measures = pytest.importorskip("ir_measures")

from irscore import ir_measures_provider  # noqa: E402 (after the importorskip)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# names whose default provider irscore reproduces exactly (gdeval's: to its 5 decimals)
NAMES = ["P@5", "P(rel=2)@3", "AP", "AP@5", "RR", "RR@3", "R@5", "R(rel=2)@5", "nDCG", "nDCG@5"]
NAMES += ["nDCG(gains={0:0,1:1,2:3,3:7})@5", "Success@3", "Bpref", "NumRet", "NumRelRet"]
NAMES += ["NumRel", "NumQ", "SetP", "SetR", "SetF", "SetAP", "IPrec@0.5", "infAP", "Rprec"]
NAMES += ["Judged@5", "Judged", "RBP(rel=1)", "INST(max_rel=3)", "INSQ(max_rel=3)"]
NAMES += ["BPM(max_rel=3)@5", "NERR8(max_rel=3)@5", "NERR9(max_rel=3)@5", "NERR10(max_rel=3)"]
NAMES += ["NERR11(max_rel=3)", "SDCG(max_rel=3)@5", "Compat", "Compat(p=0.8,normalize=False)"]
NAMES += ["ERR@5", "nDCG(dcg='exp-log2')@5", "P(judged_only=True)@3"]
GDEVAL = {"ERR@5", "nDCG(dcg='exp-log2')@5"}
GDEVAL_TOLERANCE = 5e-6 + 1e-12  # gdeval prints %.5f: 0.109375 is 0.10938
MEASURES = [ir_measures.parse_measure(name) for name in NAMES]


@pytest.fixture
def registered():
    """irscore registered for the test, ir_measures as it was afterwards."""
    provider = ir_measures_provider.register()
    yield provider
    ir_measures_provider.unregister()


def test_registered_the_way_ir_measures_registers_its_providers(registered):
    assert ir_measures.providers.registry["irscore"] is registered
    assert ir_measures.irscore is registered
    assert ir_measures.DefaultPipeline.providers[0] is not registered  # not unless asked
    assert ir_measures_provider.register(default=True) is registered
    assert ir_measures.DefaultPipeline.providers[0] is registered
    ir_measures_provider.unregister()
    assert "irscore" not in ir_measures.providers.registry
    assert all(p.NAME != "irscore" for p in ir_measures.DefaultPipeline.providers)


def test_ir_measures_module_functions_score_with_irscore_when_default(registered):
    # a value only irscore gives: RBP without rel (graded), which no default provider has
    qrels, run = {"1": {"a": 2, "b": 1}}, {"1": {"a": 1.0, "b": 0.5}}
    with pytest.raises(ValueError, match="Unsupported measures"):
        ir_measures.calc_aggregate([ir_measures.RBP], qrels, run)
    ir_measures_provider.register(default=True)
    value = ir_measures.calc_aggregate([ir_measures.RBP], qrels, run)[ir_measures.RBP]
    # p = 0.8, grades over the largest (2): (1 - 0.8) (2/2 + 0.8 * 1/2) = 0.2 * 1.4
    assert value == pytest.approx(0.28, abs=1e-15)


def test_supports_what_irscore_reads(registered):
    assert registered.supports(ir_measures.parse_measure("nDCG@10"))
    assert registered.supports(ir_measures.parse_measure("NERR8(max_rel=3)@10"))
    assert registered.supports(ir_measures.parse_measure("Accuracy"))
    assert not registered.supports(ir_measures.parse_measure("alpha_DCG@5"))


GRADES = st.integers(-1, 3)
SCORES = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, -0.5])  # few values: ties
DOCS = st.sampled_from([f"d{i}" for i in range(8)])


@st.composite
def collections(draw):
    """qrels and run over topics 1-4: each side may lack a topic the other has."""
    qrels = draw(
        st.dictionaries(
            st.sampled_from("1234"), st.dictionaries(DOCS, GRADES, min_size=1), min_size=1
        )
    )
    run = draw(
        st.dictionaries(
            st.sampled_from("1234"), st.dictionaries(DOCS, SCORES, min_size=1), min_size=1
        )
    )
    return qrels, run


@settings(
    max_examples=15,
    deadline=None,
    # the same examples each run: a random one (qrels {"4": {"d3": -1}}) once kept
    # pytrec_eval's evaluate, called by ir_measures, busy for over ten minutes of CPU
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(collections())
def test_equals_ir_measures_default_providers(data):
    qrels, run = data
    assume(set(qrels) & set(run))
    # compat's ideal ranking keeps the qrels' order among documents of one grade and one
    # score, irscore's the docno order (docs/measure-names.md): the qrels in docno order
    qrels = {topic: dict(sorted(docs.items())) for topic, docs in qrels.items()}
    provider = ir_measures_provider.IrscoreProvider()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # ir_measures one measure a call: in one call its pytrec_eval provider may score
        # nDCG on the qrels a nDCG(gains=...) of the call mapped (its first invocation),
        # and its pyndeval provider's second invocation finds the sorted run used up
        their_means, theirs = {}, []
        for measure in MEASURES:
            means, metrics = ir_measures.calc([measure], qrels, run)
            their_means |= means
            theirs += metrics
        my_means, my_metrics = provider.calc(MEASURES, qrels, run)
    mine = {(m.query_id, str(m.measure)): m.value for m in my_metrics}
    for metric in theirs:
        name = str(metric.measure)
        tolerance = GDEVAL_TOLERANCE if name in GDEVAL else 1e-9
        got = mine.get((metric.query_id, name), 0.0)
        assert got == pytest.approx(float(metric.value), abs=tolerance), (
            name,
            metric.query_id,
            qrels,
            run,
        )
    for measure, value in their_means.items():
        tolerance = GDEVAL_TOLERANCE if str(measure) in GDEVAL else 1e-9
        assert my_means[measure] == pytest.approx(float(value), abs=tolerance), (
            str(measure),
            qrels,
            run,
        )


def test_accuracy_leaves_out_the_topics_ir_measures_leaves_out():
    # topic 2 has no relevant document retrieved, topic 3 no results: no value for either.
    # (Asked beside a measure of another provider, ir_measures' default pipeline fills them
    # with 0, as its own accuracy provider does not: irscore follows the provider.)
    qrels = {"1": {"a": 1, "b": 0}, "2": {"x": 1}, "3": {"y": 1}}
    run = {"1": {"b": 2.0, "a": 1.0, "c": 0.5}, "2": {"z": 1.0, "w": 0.5}}
    measures = [ir_measures.Accuracy, ir_measures.Accuracy @ 2, ir_measures.Accuracy @ 1]
    provider = ir_measures_provider.IrscoreProvider()
    theirs_mean, theirs = ir_measures.calc(measures, qrels, run)
    mine_mean, mine = provider.calc(measures, qrels, run)

    def rows(metrics):
        return sorted((str(m.measure), m.query_id, round(m.value, 12)) for m in metrics)

    # topic 1: a has b above it, of the 2 non-relevant (b, c): 1 - 1 / (2 x 1) = 0.5; in
    # its top 2 (b a), 1 - 1 / (1 x 1) = 0; its top 1 (b) has no relevant document
    expected = [("Accuracy", "1", 0.5), ("Accuracy@2", "1", 0.0)]
    assert rows(mine) == rows(theirs) == expected
    assert mine_mean == pytest.approx(theirs_mean, abs=1e-12, nan_ok=True)
    assert math.isnan(mine_mean[ir_measures.Accuracy @ 1])  # no topic has a value
