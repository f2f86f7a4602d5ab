"""irscore's ir_measures and ranx names against the peers' own code on real files: a
held-out check beside tests/test_peer_values.py's generated collections.

For each run, the largest |irscore - peer| over the names of test_peer_values.py
(ir_measures' default providers through `ir_measures.calc_aggregate`; gdeval's
names apart, as gdeval prints 5 decimals; ranx's `evaluate(..., make_comparable=True)`),
and how many of the run's rows share their topic and score with another (ranx's
tie order is numba's unstable sort, which irscore does not reproduce).

    .venv/bin/python benchmarks/peer_names.py QRELS RUN [RUN ...]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_peer_values import GDEVAL, IR_MEASURES, RANX

import irscore


def tied_rows(path: str) -> int:
    """Rows whose (topic, score) another row of the run has."""
    with open(path, encoding="utf-8") as lines:
        counts = Counter((f[0], f[4]) for f in (line.split() for line in lines) if f)
    return sum(n for n in counts.values() if n > 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import ir_measures
    import ranx

    qrels_irm = list(ir_measures.read_trec_qrels(args.qrels))
    qrels_ranx = ranx.Qrels.from_file(args.qrels, kind="trec")
    measures = {name: ir_measures.parse_measure(name) for name in IR_MEASURES}
    for path in args.runs:
        table = irscore.evaluate(args.qrels, path, measures=IR_MEASURES + RANX, per_topic=False)
        mine = dict(zip(table["measure"].astype(str), table["value"], strict=True))
        run_irm = list(ir_measures.read_trec_run(path))
        theirs = ir_measures.calc_aggregate(list(measures.values()), qrels_irm, run_irm)
        irm = {n: abs(mine[n] - theirs[m]) for n, m in measures.items()}
        ranx_values = ranx.evaluate(
            qrels_ranx, ranx.Run.from_file(path, kind="trec"), RANX, make_comparable=True
        )
        rx = {n: abs(mine[n] - float(ranx_values[n])) for n in RANX}
        worst = max((d, n) for n, d in irm.items() if n not in GDEVAL)
        gdeval = max((d, n) for n, d in irm.items() if n in GDEVAL)
        worst_ranx = max((d, n) for n, d in rx.items())
        within = sum(d <= 1e-9 for d in rx.values())
        print(
            f"{Path(path).name}: ir_measures {worst[0]:.1e} ({worst[1]}), gdeval "
            f"{gdeval[0]:.1e} ({gdeval[1]}); ranx {worst_ranx[0]:.1e} ({worst_ranx[1]}), "
            f"{within}/{len(rx)} names within 1e-9; tied rows {tied_rows(path)}"
        )


if __name__ == "__main__":
    main()
