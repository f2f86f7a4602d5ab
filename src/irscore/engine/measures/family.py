"""What irscore declares about a measure family (`Family`) and its -m parameters
(`Params`); `registry` holds the declarations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from irscore.engine.measures import expected
from irscore.engine.measures.ranking import Context, Ranking


@dataclass(frozen=True)
class Params:
    """How a family's -m parameters read, as trec_eval's meas_init.c reads them:
    `cutoffs` (positive distinct whole numbers, sorted; a decimal cut to its whole
    part, as atol), `multiples` and `levels` (numbers, sorted, distinct printed
    names: Rprec_mult's, iprec_at_recall's), `numbers` (`count` numbers, any number
    of them when None, unsorted), `named` (`name=number` pairs of `names`, trec_eval
    10's syntax), `gains` (`level=gain` pairs, the DCG measures') or `cut_gains` (a
    gain map and cut-offs, `0=0,1=1,2=3@5,10`: nDCG@k under a map); the last four
    are kept as their text, since trec_eval names the measure after it; `default`
    when none are given."""

    kind: str
    default: Any = None
    count: int | None = None
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    """Everything about one measure family (see the module docstring).

    `compute(ranking, context, params)` and `expected(tied, context, params)`
    return {printed name: per-topic values}. `aggregate`: the `all` value is the
    mean over topics, the sum, the geometric mean, the number of topics
    (`count`), or the relevant judgments (`relevant`: num_rel, which -c counts
    over every qrels topic), or nothing (`none`: a text), or the mean over the topics with
    a value (`mean_defined`: a topic's NaN is no value, as Accuracy's without a relevant
    document). `topic_rows`: per-topic
    values exist (not for the geometric means); `printed_per_topic`: trec_eval
    prints them with -q. `text`: the per-topic values are strings (object arrays
    of str), computed only when `compute` is asked for them.
    `trec_eval`: the major versions of trec_eval computing it in its all_trec.
    `by_name`: computed only when asked for by name (the measures of the peers' names,
    `irscore.engine.measures.peer_names`), not among the families a config computes by default;
    `peer`: the peer's measure it reproduces (for `irscore measures`).
    `judgments`: what the measure is computed from: a qrels (`qrels`), trec_eval's
    preferences (`prefs`: -R prefs or -R qrels_prefs; `compute` then takes the
    topics' `irscore.engine.measures.prefs.TopicPrefs`) or judgment groups (`qrels_jg`: computed
    per group as a topic, `irscore.engine.judgment_groups` averages the groups) or judgments per
    subtopic (`subtopics`: the diversity measures; `compute` then takes the topics'
    `diversity.Coverage`, which `irscore.evaluate` builds from the qrels' subtopics; any
    qrels has them, an ordinary one one per topic).
    """

    name: str
    compute: Callable[[Ranking, Context, Any], dict[str, np.ndarray]] | None
    params: Params | None = None
    aggregate: str = "mean"
    topic_rows: bool = True
    printed_per_topic: bool = True
    integer: bool = False
    text: bool = False
    trec_eval: tuple[int, ...] = (9, 10)
    official: bool = False
    pytrec_eval: bool = True
    expected: Callable[[expected.Tied, Context, Any], dict[str, np.ndarray]] | None = None
    judgments: str = "qrels"
    by_name: bool = False
    peer: str = ""
