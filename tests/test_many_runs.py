"""Many runs in one `irscore evaluate` print what a loop over them prints, one run a call,
each block headed by its runid line (as `benchmarks/shapes.py`'s trec_eval loop does with
`trec_eval -m runid`): on the small-file path and on the engine's workers."""

from __future__ import annotations

import numpy as np
import pytest
from cli_calls import printed as cli

RUNS = 50


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A qrels of 4 topics (grades 0-2, one topic without results in some runs) and 50
    tiny runs of 3 topics x 8 with ties, tags run00..run49."""
    folder = tmp_path_factory.mktemp("many")
    rng = np.random.default_rng(8)
    qrels = [f"{t} 0 d{d} {rng.integers(0, 3)}\n" for t in range(1, 5) for d in range(12)]
    (folder / "qrels").write_text("".join(qrels))
    runs = []
    for r in range(RUNS):
        lines = []
        for t in range(1 + r % 2, 4 + r % 2):
            docs = rng.choice(16, 8, replace=False)
            scores = np.round(rng.uniform(0, 2, 8), 1)
            lines += [f"{t} Q0 d{d} {i + 1} {s} run{r:02d}\n" for i, (d, s) in
                      enumerate(zip(docs, scores, strict=True))]  # fmt: skip
        (folder / f"r{r:02d}").write_text("".join(lines))
        runs.append(str(folder / f"r{r:02d}"))
    return str(folder / "qrels"), runs


@pytest.mark.parametrize("engine", [False, True], ids=["plain", "engine"])
@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-m", "official"]])
def test_one_call_prints_the_loop_s_concatenation(files, monkeypatch, engine, flags):
    if engine:  # past the small-file path: the engine, on two forked workers
        monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")
    qrels, runs = files
    together = cli("evaluate", *flags, qrels, *runs)
    loop = []
    for run in runs:
        if "-q" in flags:  # trec_eval -m runid's line, then the run's own block
            loop.append(cli("evaluate", "-m", "runid", qrels, run))
        loop.append(cli("evaluate", *flags, qrels, run))
    assert together == "".join(loop)
    # all_trec's and official's own runid line closes or opens each block; -q adds a head
    assert together.count("runid                 \tall\trun") == RUNS * (2 if "-q" in flags else 1)
