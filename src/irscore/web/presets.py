"""The page's "Load an example" presets: small inputs whose numbers are worked out by hand.

Each preset is the data (qrels, runs A and B, their names), the tab it opens
and the settings it sets (the URL parameters of a share link). The figures:

- croft-ap: one topic, 4 relevant of 10 documents. A finds them at ranks 1, 3,
  4, 9: AP = (1/1 + 2/3 + 3/4 + 4/9) / 4 = 0.7153; B at 4, 6, 8, 10:
  AP = (1/4 + 2/6 + 3/8 + 4/10) / 4 = 0.3396 (0.71 against 0.33).
- croft-map: topic 1 has 5 relevant at ranks 1, 3, 6, 9, 10:
  (1 + 2/3 + 3/6 + 4/9 + 5/10) / 5 = 0.6222; topic 2 has 3 at 2, 5, 7:
  (1/2 + 2/5 + 3/7) / 3 = 0.4429; MAP = (0.6222 + 0.4429) / 2 = 0.5325.
- wiki-dcg: grades 3, 2, 3, 0, 1, 2 and two missed relevant (3, 2):
  DCG@6 = 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7) = 6.861, the ideal
  3, 3, 3, 2, 2, 2 gives IDCG@6 = 8.740, nDCG@6 = 6.861 / 8.740 = 0.785.
- err-cascade: grades 3, 0, 2, 1, 0 with ERR's maximum grade 3: the stop
  probabilities (2^g - 1) / 2^3 are 7/8, 0, 3/8, 1/8, 0.
- pooled-trec: `irscore pool --out DIR --seed 1` (bm25 against bm25+rerank).
- ties: three documents tied at one score, the relevant one last by docno
  (trec_eval's order): P@1 = 0 in that order, 1/3 under `--ties expected`.
- interleave: six topics; B ranks the best document first on four, A on two.
"""

from __future__ import annotations

from typing import Any


def _qrels(rows: list[tuple[str, str, int]]) -> str:
    return "".join(f"{topic} 0 {doc} {grade}\n" for topic, doc, grade in rows)


def _run(rows: list[tuple[str, list[str]]], tag: str) -> str:
    """TREC run lines: each topic's documents in rank order, scores falling."""
    lines = []
    for topic, docs in rows:
        for rank, doc in enumerate(docs, 1):
            lines.append(f"{topic} Q0 {doc} {rank} {len(docs) - rank + 1} {tag}\n")
    return "".join(lines)


def _ranked(topic: str, relevant_at: list[int], n: int = 10) -> tuple[list[str], list[tuple]]:
    """A ranking of n documents with relevant ones at the given ranks; its judgments."""
    docs, judged = [], []
    for rank in range(1, n + 1):
        relevant = rank in relevant_at
        doc = f"{'r' if relevant else 'n'}{topic}-{rank:02d}"
        docs.append(doc)
        judged.append((topic, doc, 1 if relevant else 0))
    return docs, judged


def _croft_ap() -> dict[str, Any]:
    relevant = [f"r{i}" for i in range(1, 5)]
    other = [f"n{i}" for i in range(1, 7)]
    a = ["r1", "n1", "r2", "r3", "n2", "n3", "n4", "n5", "r4", "n6"]
    b = ["n1", "n2", "n3", "r1", "n4", "r2", "n5", "r3", "n6", "r4"]
    qrels = [("1", d, 1) for d in relevant] + [("1", d, 0) for d in other]
    return {
        "title": "Croft et al.: AP of two rankings, 0.71 against 0.33",
        "tab": "metrics",
        "data": {
            "qrels": _qrels(qrels),
            "a": _run([("1", a)], "ranking1"),
            "b": _run([("1", b)], "ranking2"),
            "na": "ranking1",
            "nb": "ranking2",
        },
        "state": {"k": "5,10"},
    }


def _croft_map() -> dict[str, Any]:
    one, judged_one = _ranked("1", [1, 3, 6, 9, 10])
    two, judged_two = _ranked("2", [2, 5, 7])
    return {
        "title": "Croft et al.: MAP over two queries, 0.53",
        "tab": "metrics",
        "data": {
            "qrels": _qrels(judged_one + judged_two),
            "a": _run([("1", one), ("2", two)], "system"),
            "b": "",
            "na": "system",
            "nb": "",
        },
        "state": {"k": "5,10"},
    }


def _from_grades(grades: list[int], missed: list[int], tag: str) -> tuple[str, str]:
    docs = [f"d{i}" for i in range(1, len(grades) + 1)]
    rows = [("1", d, g) for d, g in zip(docs, grades, strict=True)]
    rows += [("1", f"m{i}", g) for i, g in enumerate(missed, 1)]
    return _qrels(rows), _run([("1", docs)], tag)


def _wiki_dcg() -> dict[str, Any]:
    qrels, run = _from_grades([3, 2, 3, 0, 1, 2], [3, 2], "wiki")
    return {
        "title": "Wikipedia's DCG example: DCG 6.861, IDCG 8.740, nDCG@6 0.785",
        "tab": "ranking",
        "data": {"qrels": qrels, "a": run, "b": "", "na": "wiki", "nb": ""},
        "state": {"grades": "3,2,3,0,1,2", "extra": "3,2", "ek": "6", "k": "6"},
    }


def _err_cascade() -> dict[str, Any]:
    qrels, run = _from_grades([3, 0, 2, 1, 0], [], "cascade")
    return {
        "title": "ERR's cascade: where the user stops (maximum grade 3)",
        "tab": "ranking",
        "data": {"qrels": qrels, "a": run, "b": "", "na": "cascade", "nb": ""},
        "state": {"grades": "3,0,2,1,0", "extra": "", "ek": "5", "gmax": "3", "k": "5"},
    }


def _ties() -> dict[str, Any]:
    qrels = _qrels([("1", "x1", 1), ("1", "x2", 0), ("1", "x3", 0), ("1", "x4", 1)])
    run = "".join(
        f"1 Q0 {doc} {rank} {score} tied\n"
        for rank, (doc, score) in enumerate([("x1", 0.5), ("x2", 0.5), ("x3", 0.5), ("x4", 0.2)], 1)
    )
    return {
        "title": "Tied scores: trec_eval's order puts the relevant document last",
        "tab": "ranking",
        "data": {"qrels": qrels, "a": run, "b": "", "na": "tied", "nb": ""},
        "state": {"mode": "data", "topic": "1", "ek": "4", "k": "1,3"},
    }


def _interleave() -> dict[str, Any]:
    judged, ranked_a, ranked_b = [], [], []
    for t in range(1, 7):
        topic = str(t)
        docs = [f"t{t}-{i:02d}" for i in range(1, 11)]
        grades = [2, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        judged += [(topic, d, g) for d, g in zip(docs, grades, strict=True)]
        shifted = docs[1:] + docs[:1]  # the best document last
        better, worse = (docs, shifted)
        ranked_a.append((topic, worse if t <= 4 else better))  # B is better on 4 of 6
        ranked_b.append((topic, better if t <= 4 else worse))
    return {
        "title": "Interleaving: B is better on four of six topics",
        "tab": "interleave",
        "data": {
            "qrels": _qrels(judged),
            "a": _run(ranked_a, "first"),
            "b": _run(ranked_b, "second"),
            "na": "first",
            "nb": "second",
        },
        "state": {"clicks": "navigational", "imps": "2000", "ilen": "5", "iseed": "1"},
    }


def _pooled() -> dict[str, Any]:
    return {
        "title": "A pooled TREC-style collection (irscore pool --seed 1)",
        "tab": "metrics",
        "pool": {"seed": "1"},
        "state": {"k": "10,20", "metric": "map"},
    }


PRESETS = {
    "croft-ap": _croft_ap(),
    "croft-map": _croft_map(),
    "wiki-dcg": _wiki_dcg(),
    "err-cascade": _err_cascade(),
    "pooled-trec": _pooled(),
    "ties": _ties(),
    "interleave": _interleave(),
}
