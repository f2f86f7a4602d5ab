"""The ideal run: every relevant document of each topic, best grade first (the ceiling).

Scored like any other run, it shows what was achievable: a perfect ranking's
P@10 is below 1 on a topic with fewer than 10 relevant documents.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irscore.engine.reading import trec

TAG = "ideal"


def ideal_run(qrels: pd.DataFrame, rel_level: int = 1, tag: str = TAG) -> pd.DataFrame:
    """The judged documents with grade >= `rel_level`, per topic by grade descending.

    The score is the grade, and equal grades are listed by docno descending
    (trec_eval's tie order), so the rank column is the rank trec_eval
    evaluates. Topics keep their order of first appearance in the qrels.
    """
    relevant = qrels[qrels["grade"] >= rel_level]
    topics = pd.Categorical(relevant["topic"], categories=pd.unique(qrels["topic"]))
    frame = pd.DataFrame(
        {"topic": topics, "docno": relevant["docno"].astype(str), "grade": relevant["grade"]}
    ).sort_values(["topic", "grade", "docno"], ascending=[True, False, False], kind="stable")
    return pd.DataFrame(
        {
            "topic": frame["topic"].astype(str).to_numpy(),
            "docno": frame["docno"].to_numpy(),
            "rank": frame.groupby("topic", observed=True).cumcount().to_numpy() + 1,
            "score": frame["grade"].to_numpy(dtype=np.float64),
            "tag": tag,
        }
    )


def write_ideal_run(qrels_path: str, output: str) -> None:
    """Write the ideal run of a qrels file as a TREC run file."""
    trec.write_run(output, ideal_run(trec.read_qrels(qrels_path)))
