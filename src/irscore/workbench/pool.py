"""Pooled test collections: what judging only to a pool depth does to the measures.

`synthetic` draws the workbench's collection: every document of a small
collection has a true grade for every query (the full-judgment truth); two
systems score documents by grade plus Gaussian noise (`bm25`, and the less
noisy `bm25+rerank`) and return their top documents; the qrels judge only the
pool (the union of both systems' top `depth`) plus a few relevant documents
neither system retrieved, as a manual run would add. `pool_of_runs` builds a
depth-k pool from real runs. `pooled_vs_truth` scores the systems on the
pooled qrels (with -J and bpref, which were made for them) and on the truth.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from irscore.engine.evaluate import evaluate
from irscore.engine.measures import parse_requests
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.reading import trec
from irscore.workbench.interleave import rankings

SYSTEMS = {"bm25": 1.0, "bm25+rerank": 0.6}  # name -> noise sd added to the true grade
FIRST_QUERY = 401


class PoolError(ValueError):
    """Options that describe no collection (a pool deeper than the runs, ...)."""


@dataclass(frozen=True)
class Collection:
    """A synthetic collection: full judgments, the pooled qrels and the systems' runs."""

    truth: pd.DataFrame
    qrels: pd.DataFrame
    runs: dict[str, pd.DataFrame]


def synthetic(
    queries: int = 25,
    per_run: int = 20,
    depth: int = 10,
    grades: int = 3,
    documents: int = 1000,
    relevant_share: float = 0.015,
    missed: int = 2,
    seed: int = 0,
) -> Collection:
    """Draw the collection; every choice comes from one seeded numpy Generator.

    Each (query, document) is relevant with probability `relevant_share`, its
    grade then uniform over 1 .. grades - 1; a system's score is grade + noise.
    """
    if min(queries, per_run, depth, documents) < 1 or grades < 2 or missed < 0:
        raise PoolError("queries, documents, pool depth >= 1; grades >= 2; missed >= 0")
    if depth > per_run or per_run > documents:
        raise PoolError(f"need pool depth {depth} <= documents per run {per_run} <= {documents}")
    rng = np.random.Generator(np.random.PCG64(seed))
    width = len(str(documents))
    docnos = np.array([f"D{i:0{width}d}" for i in range(1, documents + 1)])
    topics = [str(FIRST_QUERY + q) for q in range(queries)]
    truth_rows, qrels_rows = [], []
    runs: dict[str, list[pd.DataFrame]] = {name: [] for name in SYSTEMS}
    for topic in topics:
        relevant = rng.random(documents) < relevant_share
        grade = np.where(relevant, rng.integers(1, grades, size=documents), 0)
        truth_rows.append(pd.DataFrame({"topic": topic, "docno": docnos, "grade": grade}))
        pool: set[str] = set()
        retrieved: set[str] = set()
        for name, noise in SYSTEMS.items():
            score = np.round(grade + noise * rng.standard_normal(documents), 6)
            top = np.lexsort((docnos, -score))[:per_run]  # score desc, docno asc
            runs[name].append(
                pd.DataFrame(
                    {
                        "topic": topic,
                        "docno": docnos[top],
                        "rank": np.arange(1, per_run + 1),
                        "score": score[top],
                        "tag": name,
                    }
                )
            )
            pool |= set(docnos[top[:depth]])
            retrieved |= set(docnos[top])
        unfound = [i for i in np.flatnonzero(grade > 0) if docnos[i] not in retrieved]
        extra = rng.permutation(unfound)[:missed] if unfound else []
        judged = sorted(pool | set(docnos[extra]))
        index = np.searchsorted(docnos, judged)
        qrels_rows.append(pd.DataFrame({"topic": topic, "docno": judged, "grade": grade[index]}))
    return Collection(
        truth=pd.concat(truth_rows, ignore_index=True),
        qrels=pd.concat(qrels_rows, ignore_index=True),
        runs={name: pd.concat(parts, ignore_index=True) for name, parts in runs.items()},
    )


def pool_of_runs(runs: Iterable[pd.DataFrame], depth: int) -> pd.DataFrame:
    """The depth-k pool of the runs: per topic, the union of each run's top k documents
    in trec_eval's order, as (topic, docno) sorted by topic and docno. The runs may come
    one at a time (a generator of runs read as they are asked for): each is let go once
    its top k are taken, so a track's hundreds of runs are never held together."""
    if depth < 1:
        raise PoolError(f"--depth takes a positive number of documents, got {depth}")
    pairs: set[tuple[str, str]] = set()
    for run in runs:
        heads = rankings(run, depth)
        del run  # before the next run is read
        pairs.update((topic, doc) for topic, ranked in heads.items() for doc in ranked)
    return pd.DataFrame(sorted(pairs), columns=["topic", "docno"])


def judge(pool: pd.DataFrame, qrels: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The qrels lines of the pooled documents, and how many pooled documents have none."""
    merged = pool.merge(qrels, on=["topic", "docno"], how="left")
    unjudged = int(merged["grade"].isna().sum())
    judged = merged.dropna(subset=["grade"]).astype({"grade": np.int64})
    return judged.reset_index(drop=True), unjudged


def write_pool(path: str, pool: pd.DataFrame) -> None:
    """The documents to judge, one `topic docno` line each."""
    trec.write_lines_atomically(
        path, (f"{t} {d}\n" for t, d in zip(pool["topic"], pool["docno"], strict=True))
    )


COMPARED = ["map", "P.10,20", "bpref", "judged.10,20", "ndcg_cut.10"]
COLUMNS = {
    "map": "MAP",
    "P_10": "P@10",
    "P_20": "P@20",
    "ndcg_cut_10": "nDCG@10",
    "bpref": "bpref",
    "judged_10": "judged@10",
    "judged_20": "judged@20",
}


def pooled_vs_truth(c: Collection) -> pd.DataFrame:
    """Each system on the truth, on the pool (unjudged = non-relevant) and on the pool -J."""
    spec, _ = parse_requests(COMPARED)
    judged_only = Convention.from_changes("judged_only", {"unjudged": "removed"})
    rows = []
    for name, run in c.runs.items():
        for qrels, convention, label in (
            (c.truth, REFERENCE, "truth (every document judged)"),
            (c.qrels, REFERENCE, "pooled"),
            (c.qrels, judged_only, "pooled, -J"),
        ):
            table = evaluate(qrels, run, [convention], spec, run_name=name)
            means = table[table["topic"] == "all"].set_index("measure")["value"]
            rows.append(
                {"system": name, "qrels": label, **{COLUMNS[m]: float(means[m]) for m in COLUMNS}}
            )
    return pd.DataFrame(rows)


def write(c: Collection, out: str | Path) -> list[str]:
    """qrels.txt (pooled), truth.txt (full judgments), one run per system and pool.md."""
    out = Path(out)
    trec.write_qrels(out / "qrels.txt", c.qrels)
    trec.write_qrels(out / "truth.txt", c.truth)
    names = ["qrels.txt", "truth.txt"]
    for name, run in c.runs.items():
        trec.write_run(out / f"{name}.run", run)
        names.append(f"{name}.run")
    table = pooled_vs_truth(c)
    trec.write_lines_atomically(out / "pool.md", [markdown(c, table)])
    return [*names, "pool.md"]


def markdown(c: Collection, table: pd.DataFrame) -> str:
    """The pooled-versus-truth table with the collection's counts above it."""
    judged = len(c.qrels)
    relevant_truth = int((c.truth["grade"] > 0).sum())
    relevant_pool = int((c.qrels["grade"] > 0).sum())
    head = (
        f"{c.qrels['topic'].nunique()} queries; {judged} judged documents in the pool, "
        f"{relevant_pool} of the {relevant_truth} relevant ones in the truth\n\n"
    )
    columns = list(table.columns)
    lines = ["| " + " | ".join(columns) + " |", "| --- | --- |" + " ---: |" * (len(columns) - 2)]
    for row in table.itertuples(index=False):
        cells = [f"{v:.4f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"
