"""Write the golden tests' inputs: seeded qrels and runs with what trips evaluators up.

Ties (exact, and equal only in float32), unjudged documents, negative grades,
topics missing from the run or from the qrels, graded judgments up to 3, and
numeric-looking docnos that sort differently as strings; and `boundary`, 1000
topics whose mean P_20 lies on a rounding boundary of the printed 4 decimals, where
adding the topics in another order than trec_eval's prints another digit. Run from the
repository root: `python tests/golden/generate.py` (the same bytes every time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# name: (seed, topics, documents per topic at most, judged per topic at most)
INPUTS = {"small": (11, 12, 60, 30), "medium": (12, 80, 120, 40)}


def _score_text(score: float) -> str:
    return repr(float(score))


def generate(seed: int, n_topics: int, max_docs: int, max_judged: int) -> tuple[str, str]:
    """(qrels text, run text) of one seeded collection."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    topics = [str(t) for t in rng.choice(np.arange(1, 400), size=n_topics, replace=False)]
    for i, topic in enumerate(sorted(topics, key=int)):
        pool = [f"d{n}" for n in rng.choice(np.arange(1, 3000), size=2 * max_docs, replace=False)]
        judged = pool[: int(rng.integers(1, max_judged + 1))]
        grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        if (grades <= 0).all():
            grades[0] = 1  # trec_eval 9 crashes on a topic with only negative grades
        if i % 7 != 3:  # some topics have no judgments: the run's topic is skipped
            qrels += [f"{topic} 0 {d} {g}\n" for d, g in zip(judged, grades, strict=True)]
        if i % 5 == 2:  # some judged topics are not in the run (-c)
            continue
        n = int(rng.integers(1, max_docs + 1))
        docs = list(rng.permutation(pool)[:n])
        scores = np.round(rng.normal(10, 3, size=n), int(rng.integers(0, 3)))  # exact ties
        near = rng.random(n) < 0.1  # equal only at float32 precision
        scores[near] = 7.0 + rng.integers(0, 3, size=near.sum()) * 1e-9
        run += [
            f"{topic} Q0 {d} {r} {_score_text(s)} golden\n"
            for r, (d, s) in enumerate(zip(docs, scores, strict=True), start=1)
        ]
    return "".join(qrels), "".join(run)


def boundary(seed: int = 3, n_topics: int = 1000) -> tuple[str, str]:
    """Topics with 3 relevant documents of which the run retrieves 0-3 (P_20 = k/20), an
    odd total: the mean sum(k)/20000 is a decimal 5 in the fifth place."""
    rng = np.random.default_rng(seed)
    found = rng.integers(0, 4, size=n_topics)
    qrels, run = [], []
    for t, k in enumerate(found):
        topic = f"t{t:04d}"
        qrels += [f"{topic} 0 r{j} 1\n" for j in range(3)]
        docs = [f"r{j}" for j in range(k)] or ["n0"]
        run += [f"{topic} Q0 {d} {r} {10 - r} b\n" for r, d in enumerate(docs, start=1)]
    return "".join(qrels), "".join(run)


def main() -> None:
    collections = {name: generate(*params) for name, params in INPUTS.items()}
    collections["boundary"] = boundary()
    for name, (qrels, run) in collections.items():
        (HERE / f"{name}.qrels").write_text(qrels)
        (HERE / f"{name}.run").write_text(run)


if __name__ == "__main__":
    main()
