"""Seeded TREC inputs in the shapes of the collections people evaluate.

Each builder writes a qrels file and one or more run files into a folder and
returns their paths. Sizes, id styles and qrels density follow the real
collections (MS MARCO passage dev, TREC DL 2019, Robust04, a BEIR dataset); the
documents, scores and judgments are random. Everything is vectorised and
written through Arrow's CSV writer, so the 7M-line input takes seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

MARCO_PASSAGES = 8_841_823  # MS MARCO passage collection: docnos 0 .. 8,841,822
ONE_TOPIC = 20_000_000  # the collection the one-topic shape draws from
ROBUST04_TOPICS = np.setdiff1d(np.r_[301:451, 601:701], [672])  # 249: 672 has no relevant
WRITE = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")


@dataclass(frozen=True)
class Inputs:
    """The files of one shape: qrels, its runs, and how many run lines they hold."""

    qrels: Path
    runs: list[Path]
    lines: int


def write(path: Path, batches: Iterator[dict[str, np.ndarray]]) -> int:
    """Write space-separated columns, batch by batch; return the number of lines."""
    writer, lines = None, 0
    for columns in batches:
        table = pa.table({name: pa.array(values) for name, values in columns.items()})
        if writer is None:
            writer = pacsv.CSVWriter(path, table.schema, write_options=WRITE)
        writer.write_table(table)
        lines += table.num_rows
    if writer is not None:
        writer.close()
    return lines


def distinct_ids(rng: np.random.Generator, rows: int, width: int, space: int) -> np.ndarray:
    """`width` distinct integers from [0, space) per row, in random order."""
    ids = np.sort(rng.integers(0, space - width + 1, (rows, width)), axis=1) + np.arange(width)
    return rng.permuted(ids, axis=1)


def weighted_positions(rng: np.random.Generator, rows: int, depth: int, k: int) -> np.ndarray:
    """k distinct ranks (0-based) per row out of `depth`, the top ranks likelier
    (weight 1/rank^0.9: about 60% in the top 10% of a 1,000-deep ranking)."""
    keys = rng.exponential(size=(rows, depth)) * np.arange(1, depth + 1) ** 0.9
    return np.argpartition(keys, k - 1, axis=1)[:, :k] if k < depth else np.argsort(keys, axis=1)


def descending_scores(rng: np.random.Generator, rows: int, depth: int, decimals: int) -> np.ndarray:
    """Scores falling with rank, BM25-like, rounded so that neighbours sometimes tie."""
    gaps = rng.exponential(0.02, (rows, depth))
    top = rng.uniform(15, 40, (rows, 1))
    return np.round(np.maximum(top - np.cumsum(gaps, axis=1), 0.0), decimals)


def shuffled_valid_first(rng: np.random.Generator, counts: np.ndarray, width: int) -> np.ndarray:
    """Per row, the column indices 0..counts-1 in random order, then the padding."""
    keys = rng.random((len(counts), width)) + (np.arange(width) >= counts[:, None])
    return np.argsort(keys, axis=1)


def run_batches(
    topics: np.ndarray, docnos: np.ndarray, scores: np.ndarray, tag: str, batch: int = 500
) -> Iterator[dict[str, np.ndarray]]:
    """Run columns for (topics x depth) docnos and scores, `batch` topics at a time."""
    depth = docnos.shape[1]
    for first in range(0, len(topics), batch):
        part = slice(first, first + batch)
        n = len(topics[part]) * depth
        yield {
            "topic": np.repeat(topics[part], depth),
            "q0": np.full(n, "Q0"),
            "docno": docnos[part].reshape(-1),
            "rank": np.tile(np.arange(1, depth + 1), len(topics[part])),
            "score": scores[part].reshape(-1),
            "tag": np.full(n, tag),
        }


def qrels_batch(topics: np.ndarray, docnos: np.ndarray, grades: np.ndarray) -> dict:
    """Qrels columns (`topic 0 docno grade`) for flat arrays."""
    return {"topic": topics, "iteration": np.zeros(len(topics), np.int64), "docno": docnos,
            "grade": grades}  # fmt: skip


def pooled(
    rng: np.random.Generator,
    judged: np.ndarray,
    counts: np.ndarray,
    filler: np.ndarray,
    retrieved: float,
) -> np.ndarray:
    """A ranking per topic: filler docnos with about `retrieved` of each topic's
    judged ones (the first `counts` of its row) placed at top-weighted ranks."""
    rows, depth = filler.shape
    take = np.minimum(rng.binomial(counts, retrieved), depth)
    k = max(int(take.max()), 1)
    ranks = weighted_positions(rng, rows, depth, k)
    chosen = np.take_along_axis(judged, shuffled_valid_first(rng, counts, judged.shape[1]), 1)
    ranking = filler.copy()
    use = np.arange(k) < take[:, None]
    row_index = np.broadcast_to(np.arange(rows)[:, None], (rows, k))
    ranking[row_index[use], ranks[use]] = chosen[:, :k][use]
    return ranking


def scattered(ids: np.ndarray, collection: int) -> np.ndarray:
    """ids of [0, collection) moved by a bijection of it, so that no pattern shows."""
    factor = 2_654_435_761 % collection
    while math.gcd(factor, collection) != 1:
        factor += 1
    return ids * factor % collection


def judged_ids(rng: np.random.Generator, rows: int, width: int, collection: int) -> np.ndarray:
    """`width` distinct judged ids per row, from the tenth of the collection that
    filler_ids never draws from."""
    return scattered(distinct_ids(rng, rows, width, collection // 10) * 10, collection)


def filler_ids(rng: np.random.Generator, rows: int, width: int, collection: int) -> np.ndarray:
    """`width` distinct ids per row that are never judged_ids: a run's filler never
    repeats a judged document."""
    ids = distinct_ids(rng, rows, width, 9 * (collection // 10 - 1))
    return scattered(10 * (ids // 9) + ids % 9 + 1, collection)


def v2_docnos(ids: np.ndarray) -> np.ndarray:
    """MS MARCO v2's passage docnos for numeric ids, one for one: `msmarco_passage_` then
    one of 70 files and a byte offset into it of 1 to 10 digits (`msmarco_passage_03_1009`)."""
    add = np.strings.add
    where = np.strings.zfill((ids % 70).astype(str), 2)
    return add(add("msmarco_passage_", where), add("_", (ids // 70 * 1009).astype(str)))


def marco(folder: Path, queries: int, seed: int = 11, v2: bool = False) -> tuple[Inputs, Inputs]:
    """MS MARCO passage dev: numeric qids and docnos, ~1.06 relevant (grade 1) per
    query, 86% of them retrieved; the top-1,000 run and its first 100 ranks. `v2`:
    the same judgments and runs with v2's long docnos (`v2_docnos`)."""
    name, docnos = ("marco_v2", v2_docnos) if v2 else ("marco", lambda ids: ids)
    rng = np.random.default_rng(seed)
    qids = rng.choice(np.arange(2, 1_102_400), queries, replace=False)
    depth = 1000
    ids = distinct_ids(rng, queries, depth + 2, MARCO_PASSAGES)
    run, extra = ids[:, :depth], ids[:, depth:]
    counts = 1 + (rng.random(queries) < 0.06)
    ranks = weighted_positions(rng, queries, depth, 2)
    found = rng.random((queries, 2)) < 0.86
    relevant = np.where(found, np.take_along_axis(run, ranks, 1), extra)
    use = np.arange(2) < counts[:, None]
    topic = np.broadcast_to(qids[:, None], (queries, 2))[use]
    order = np.argsort(topic, kind="stable")  # the qrels file sorted by qid
    qrels = folder / f"{name}.qrels"
    judged = docnos(relevant[use][order])
    write(qrels, iter([qrels_batch(topic[order], judged, np.ones(len(topic), int))]))
    scores = descending_scores(rng, queries, depth, 4)
    out = []
    for top in (100, 1000):
        path = folder / f"{name}.top{top}.run"
        lines = write(path, run_batches(qids, docnos(run[:, :top]), scores[:, :top], "bm25"))
        out.append(Inputs(qrels, [path], lines))
    return out[0], out[1]


def trec_dl(folder: Path, runs: int, topics: int = 43, seed: int = 19, depth: int = 1000) -> Inputs:
    """TREC DL 2019 passage: 43 queries x `depth` (1,000), ~215 judgments each graded
    0-3 (56/17/20/7%), about half of them retrieved; `runs` runs over the same qrels."""
    rng = np.random.default_rng(seed)
    qids = rng.choice(np.arange(1, 1_200_000), topics, replace=False)
    counts = rng.integers(150, 281, topics)
    width = int(counts.max())
    judged = judged_ids(rng, topics, width, MARCO_PASSAGES)
    grades = rng.choice(4, (topics, width), p=[0.557, 0.173, 0.195, 0.075])
    use = np.arange(width) < counts[:, None]
    qrels = folder / ("dl.qrels" if depth == 1000 else f"dl{depth}.qrels")
    topic = np.broadcast_to(qids[:, None], (topics, width))[use]
    write(qrels, iter([qrels_batch(topic, judged[use], grades[use])]))
    paths, lines = [], 0
    for r in range(runs):
        filler = filler_ids(rng, topics, depth, MARCO_PASSAGES)
        ranking = pooled(rng, judged, counts, filler, retrieved=rng.uniform(0.35, 0.65))
        path = folder / (f"dl.run{r + 1:03d}" if depth == 1000 else f"dl{depth}.run{r + 1:04d}")
        scores = descending_scores(rng, topics, depth, 4)
        lines += write(path, run_batches(qids, ranking, scores, f"run{r + 1:03d}"))
        paths.append(path)
    return Inputs(qrels, paths, lines)


def newswire_docnos() -> np.ndarray:
    """Robust04's 528,155 docnos in their four styles (FBIS, FR94, FT, LA), sorted."""
    add = np.strings.add

    def text(a: np.ndarray, width: int = 1) -> np.ndarray:
        return np.strings.zfill(a.astype(str), width)

    n = np.arange(65_236) + 1
    fbis = np.concatenate([add("FBIS3-", text(n)), add("FBIS4-", text(n[:-1]))])  # FBIS3-10082
    i = np.arange(55_630)  # FR940104-0-00001
    fr = add(add("FR94", text(i // 4636 + 1, 2)), text(i // 150 % 28 + 1, 2))
    fr = add(add(fr, add("-", text(i % 2))), add("-", text(i, 5)))
    i = np.arange(210_158)  # FT911-1
    ft = add(add("FT9", text(i % 45 + 11)), add("-", text(i + 1)))
    i = np.arange(131_896)  # LA010189-0001
    day = i % 730
    la = add(add("LA", text(day % 365 // 31 + 1, 2)), text(day % 365 % 31 + 1, 2))
    la = add(add(la, text(89 + day // 365, 2)), add("-", text(i // 730 + 1, 4)))
    return np.unique(np.concatenate([fbis, fr, ft, la]))


def robust04(folder: Path, topics: int, seed: int = 23) -> Inputs:
    """Robust04: topics 301-450 and 601-700 but 672, 1,000 newswire docnos each,
    ~1,250 judgments per topic (~6% relevant, a few grade 2), a third retrieved."""
    rng = np.random.default_rng(seed)
    qids = ROBUST04_TOPICS[:topics]
    topics = len(qids)
    names = newswire_docnos()
    counts = rng.integers(500, 2001, topics)
    width = int(counts.max())
    judged = judged_ids(rng, topics, width, len(names))
    grades = rng.choice(3, (topics, width), p=[0.94, 0.05, 0.01])
    use = np.arange(width) < counts[:, None]
    topic = np.broadcast_to(qids[:, None], (topics, width))[use]
    docno = names[judged[use]]
    order = np.lexsort((docno, topic))  # the qrels file sorted by topic, then docno
    qrels = folder / "robust04.qrels"
    write(qrels, iter([qrels_batch(topic[order], docno[order], grades[use][order])]))
    filler = filler_ids(rng, topics, 1000, len(names))
    ranking = pooled(rng, judged, counts, filler, retrieved=0.3)
    run = folder / "robust04.run"
    scores = descending_scores(rng, topics, 1000, 4)
    return Inputs(qrels, [run], write(run, run_batches(qids, names[ranking], scores, "bm25")))


def beir(folder: Path, judged_topics: int, seed: int = 29) -> Inputs:
    """BEIR-style: `PLAIN-n` qids, 8-character docnos from 171,332, top 100 of
    dense-retriever float32 scores printed as doubles with some ties only in
    float32; lines shuffled; 10 judged topics without results, 15 without a
    relevant document, 5 run topics without judgments."""
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz", np.uint8)
    codes = rng.choice(alphabet, (171_332, 8))
    names = np.unique(codes.view("S8").ravel().astype(str))  # 36^8: a repeat is unlikely
    qids = np.strings.add("PLAIN-", rng.choice(4000, judged_topics + 5, replace=False).astype(str))
    counts = rng.integers(1, 61, judged_topics)
    width = int(counts.max())
    judged = judged_ids(rng, judged_topics, width, len(names))
    grades = rng.choice(3, (judged_topics, width), p=[0.5, 0.3, 0.2])
    grades[:15] = 0  # topics whose judgments are all non-relevant
    use = np.arange(width) < counts[:, None]
    topic = np.broadcast_to(qids[:judged_topics, None], (judged_topics, width))[use]
    qrels = folder / "beir.qrels"
    write(qrels, iter([qrels_batch(topic, names[judged[use]], grades[use])]))
    in_run = np.r_[0:judged_topics - 10, judged_topics:judged_topics + 5]  # fmt: skip
    rows = len(in_run)
    filler = filler_ids(rng, rows, 100, len(names))
    padded = np.zeros((rows, width), np.int64)
    padded[: judged_topics - 10] = judged[: judged_topics - 10]
    present = np.zeros(rows, np.int64)
    present[: judged_topics - 10] = counts[: judged_topics - 10]
    ranking = pooled(rng, padded, present, filler, retrieved=0.7)
    scores = np.sort(rng.uniform(0.3, 0.9, (rows, 100)).astype(np.float32), axis=1)[:, ::-1]
    scores = scores.astype(np.float64)
    tie = rng.random((rows, 100)) < 0.1
    tie[:, 0] = False
    previous = np.roll(scores, 1, axis=1)
    quarter_ulp = np.spacing(previous.astype(np.float32)).astype(np.float64) / 4
    tied = previous - quarter_ulp
    tie &= tied.astype(np.float32) == previous.astype(np.float32)
    scores = np.where(tie, tied, scores)  # equal to the rank above in float32 only
    run_lines = next(run_batches(qids[in_run], names[ranking], scores, "dense", batch=rows))
    order = rng.permutation(rows * 100)
    run = folder / "beir.run"
    write(run, iter([{name: values[order] for name, values in run_lines.items()}]))
    return Inputs(qrels, [run], rows * 100)


def one_document(folder: Path, queries: int, seed: int = 31) -> Inputs:
    """`queries` queries x 1 document (numeric ids, 1 relevant each, 40% found)."""
    rng = np.random.default_rng(seed)
    qids = rng.permutation(np.arange(1, queries + 1))
    ids = distinct_ids(rng, queries, 2, MARCO_PASSAGES)
    found = rng.random(queries) < 0.4
    retrieved = np.where(found, ids[:, 0], ids[:, 1])
    qrels = folder / "one_document.qrels"
    write(qrels, iter([qrels_batch(np.sort(qids), ids[np.argsort(qids), 0],
                                   np.ones(queries, np.int64))]))  # fmt: skip
    run = folder / "one_document.run"
    scores = np.round(rng.uniform(5, 30, (queries, 1)), 4)
    return Inputs(qrels, [run], write(run, run_batches(qids, retrieved[:, None], scores, "bm25")))


def one_topic(folder: Path, documents: int, seed: int = 37) -> Inputs:
    """One topic of `documents` `D123`-style docnos from 20M, 3 decimals (many
    ties), 3,000 judgments (20% relevant, grades 1-2), 70% of them retrieved."""
    rng = np.random.default_rng(seed)
    judged = judged_ids(rng, 1, 3000, ONE_TOPIC)
    filler = filler_ids(rng, 1, documents, ONE_TOPIC)
    ranking = pooled(rng, judged, np.array([3000]), filler, retrieved=0.7)
    grades = rng.choice(3, 3000, p=[0.8, 0.15, 0.05])
    qrels = folder / "one_topic.qrels"
    names = lambda ids: np.strings.add("D", ids.astype(str))  # noqa: E731
    write(qrels, iter([qrels_batch(np.full(3000, 1), names(judged[0]), grades)]))
    run = folder / "one_topic.run"
    scores = np.round(np.sort(rng.gamma(2.0, 2.0, (1, documents)), axis=1)[:, ::-1], 3)
    return Inputs(qrels, [run], write(run, run_batches(np.array([1]), names(ranking), scores, "x")))
