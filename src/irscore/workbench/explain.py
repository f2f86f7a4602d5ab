"""Why a number is what it is: one ranking explained rank by rank.

Every value comes from the evaluation code itself: the running values (P@i,
recall@i, AP@i, nDCG@i, ERR@i) are the measures at cut-off i computed by
`evaluate_one`, the DCG terms are the measure kernel's `discounted_gain` and
`ideal_terms` on the ranking `rank` builds, and the final values are the
measures `irscore evaluate` prints for the same files and convention. What
this module adds is the layout: the per-rank table, the formula of each
final value filled in with its terms, the tie groups and the range of values
over the orders of those ties.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irscore.engine import measures
from irscore.engine.evaluate import evaluate_one
from irscore.engine.measures.registry import EXPECTED_FAMILIES
from irscore.engine.ranking.conventions import Convention, name_under
from irscore.engine.ranking.prepare import prepare
from irscore.engine.ranking.rank import as_float32, rank
from irscore.engine.reading.trec import float_text

UNJUDGED = "?"
# Families whose running value is shown at every rank (cut-off i = the rank).
RUNNING = ("P", "recall", "map_cut", "ndcg_cut", "ndcg_exp_cut", "err", "judged")
# Whole-ranking measures among the final values.
WHOLE = ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg", "bpref")
TIE_ORDERS = ("pessimistic", "expected", "optimistic")
WIDTH = 100  # text lines wrap here (tables too, unless --wide)
FORMULA_TERMS = 12
TIE_DOCS = 10  # docnos listed per tie group  # terms written out in a formula before "+ ..."


class ExplainError(ValueError):
    """An explain request that cannot be answered (no such topic, bad grades)."""


@dataclass(frozen=True)
class Final:
    """One final value: its long-table measure name, a label, the value and its arithmetic."""

    measure: str
    label: str
    value: float
    formula: str


@dataclass(frozen=True)
class Explanation:
    """A ranking's per-rank table, its final values with formulas, and its ties."""

    topic: str
    convention: Convention
    k: int
    ranks: pd.DataFrame
    finals: list[Final]
    ties: list[str]
    tie_range: pd.DataFrame | None


def parse_grades(text: str, option: str) -> list[int | None]:
    """`3,2,?,0` as grades, None for `?` (unjudged); a one-line error names the bad item."""
    grades: list[int | None] = []
    for item in text.split(","):
        item = item.strip()
        if item == UNJUDGED and option == "--grades":
            grades.append(None)
            continue
        try:
            grades.append(int(item))
        except ValueError:
            raise ExplainError(f"{option}: {item!r} is not an integer grade") from None
    return grades


def from_grades(
    grades: Sequence[int | None],
    missed: Sequence[int] = (),
    scores: Sequence[float] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A one-topic qrels and run from grades in rank order (None = unjudged).

    Documents are named d1, d2, ... in rank order and m1, m2, ... for the relevant
    documents the ranking missed; scores default to n, n-1, ..., 1 (no ties), so
    every convention keeps the given order unless `scores` ties some documents.
    """
    if not grades:
        raise ExplainError("--grades: give at least one grade")
    if scores is not None and len(scores) != len(grades):
        raise ExplainError(f"--scores: {len(scores)} scores for {len(grades)} grades")
    width = len(str(max(len(grades), len(missed), 1)))
    docs = [f"d{i:0{width}d}" for i in range(1, len(grades) + 1)]
    extra = [f"m{i:0{width}d}" for i in range(1, len(missed) + 1)]
    judged = [(d, g) for d, g in zip(docs, grades, strict=True) if g is not None]
    qrels = pd.DataFrame(
        {
            "topic": "1",
            "docno": [d for d, _ in judged] + extra,
            "grade": np.array([g for _, g in judged] + list(missed), dtype=np.int64),
        }
    )
    score = (
        list(scores) if scores is not None else [float(len(grades) - i) for i in range(len(grades))]
    )
    run = pd.DataFrame(
        {
            "topic": "1",
            "docno": docs,
            "rank": np.arange(1, len(grades) + 1, dtype=np.int64),
            "score": np.array(score, dtype=np.float64),
            "tag": "explain",
        }
    )
    return qrels, run


def explain(
    qrels: pd.DataFrame, run: pd.DataFrame, topic: str, convention: Convention, k: int
) -> Explanation:
    """The explanation of `topic` under `convention`, with the table down to rank k."""
    if k < 1:
        raise ExplainError(f"-k takes a positive rank, got {k}")
    qrels = qrels[qrels["topic"] == topic]
    run = run[run["topic"] == topic]
    if run.empty:
        raise ExplainError(f"topic {topic}: the run has no documents for it")
    if qrels.empty:
        raise ExplainError(f"topic {topic}: the qrels judge no document for it")
    prepared = prepare(qrels.reset_index(drop=True), run.reset_index(drop=True))
    ranking, rows, _, _ = rank(prepared, convention)
    ranking = ranking.cut  # the documents -M leaves
    shown = min(k, len(rows))
    values = _values(prepared, convention, _spec(max(shown, 1), k, convention))
    ranks = _rank_table(prepared, ranking, rows, convention, values, shown)
    finals = _finals(ranking, convention, values, ranks, k)
    ties, tie_range = _ties(prepared, rows, convention, k)
    return Explanation(topic, convention, k, ranks, finals, ties, tie_range)


def _spec(shown: int, k: int, convention: Convention) -> measures.MeasureSpec:
    """Every running family at cut-offs 1..shown and k, and the whole-ranking measures."""
    cutoffs = tuple(sorted({*range(1, shown + 1), k}))
    families = frozenset({*RUNNING, *WHOLE})
    if convention.ties == "expected":
        families &= EXPECTED_FAMILIES
    return measures.MeasureSpec(families=families, **{f: cutoffs for f in RUNNING})


def _values(p, convention: Convention, spec: measures.MeasureSpec) -> dict[str, float]:
    """Each measure of the topic under the convention, and the nDCG@i of both gains."""
    linear = convention.replace(gain="linear")
    values, _, _, _ = evaluate_one(p, linear, spec)
    out = {name: float(array[0]) for name, array in values.items()}
    if convention.gain == "exponential":  # the convention's own names for its nDCG lines
        exp_values, _, _, _ = evaluate_one(p, convention, spec)
        out.update({name: float(array[0]) for name, array in exp_values.items()})
    return out


def _rank_table(p, r, rows, convention: Convention, values: dict, shown: int) -> pd.DataFrame:
    """One row per rank 1..shown: the document, its grade and every running value."""
    grade = r.grade[:shown]
    judged = r.judged[:shown]
    relevant = r.rel[:shown]
    rank_no = np.arange(1, shown + 1)
    num_rel = values["num_rel"]
    discount = 1.0 / np.log2(rank_no + 1.0)
    dcg_lin = np.cumsum(measures.discounted_gain(r, "linear")[:shown])
    dcg_exp = np.cumsum(measures.discounted_gain(r, "exponential")[:shown])
    ideal_lin = _ideal_running(r, "linear", shown)
    ideal_exp = _ideal_running(r, "exponential", shown)
    # ERR (Chapelle et al. 2009): stop probability R_i = (2^g - 1) / 2^gmax, capped at 1
    stop = np.minimum(
        (np.exp2(np.where(judged, np.maximum(grade, 0), 0)) - 1.0) / 2.0**convention.gmax, 1.0
    )
    reach = np.concatenate(([1.0], np.cumprod(1.0 - stop)[:-1]))

    def running(family: str) -> list[float]:
        return [values.get(f"{family}_{i}", np.nan) for i in rank_no]

    precision = running("P")
    return pd.DataFrame(
        {
            "rank": rank_no,
            "docno": [str(d) for d in p.run_docno[rows[:shown]]],
            "score": p.run_score[rows[:shown]],
            "grade": [str(int(g)) if j else UNJUDGED for g, j in zip(grade, judged, strict=True)],
            "relevant": np.where(relevant, "yes", "no"),
            "P@i": precision,
            "recall@i": running("recall"),
            "AP term": np.where(relevant, np.array(precision) / num_rel if num_rel else 0.0, 0.0),
            "AP@i": running("map_cut"),
            "discount": discount,
            "gain": measures.gains_of(np.where(judged, grade, 0), "linear"),
            "gain exp": measures.gains_of(np.where(judged, grade, 0), "exponential"),
            "DCG@i": dcg_lin,
            "IDCG@i": ideal_lin,
            "nDCG@i": running("ndcg_cut"),
            "DCG exp@i": dcg_exp,
            "IDCG exp@i": ideal_exp,
            "nDCG exp@i": running("ndcg_exp_cut"),
            "ERR stop": stop,
            "ERR reach": reach,
            "ERR term": stop * reach / rank_no,
            "ERR@i": running("err"),
        }
    )


def _ideal_running(r, gain: str, shown: int) -> np.ndarray:
    """The ideal ranking's DCG at ranks 1..shown (flat once the ideal runs out)."""
    terms = np.cumsum(measures.ideal_terms(r, gain)[2])
    if len(terms) == 0:
        return np.zeros(shown)
    return np.concatenate((terms, np.full(max(shown - len(terms), 0), terms[-1])))[:shown]


def _finals(r, convention: Convention, values: dict, ranks: pd.DataFrame, k: int) -> list[Final]:
    """The final values, each with its arithmetic written out."""
    R = int(values["num_rel"])
    gain = convention.gain
    rel_rank = r.rank[r.rel]
    found = r.cumrel[r.rel].astype(np.int64)
    out: list[Final] = []

    expected = convention.ties == "expected"

    def add(measure: str, label: str, formula: str) -> None:
        name = name_under(measure, convention)
        if name in values:
            if expected:  # one order's terms would not add up to the mean over orders
                formula = "the mean over every order of the tied documents (closed form)"
            out.append(Final(name, label, values[name], formula))

    at_k = found[rel_rank <= k]
    out.append(Final("num_rel", "R", float(R), "relevant documents in the qrels"))
    add(f"P_{k}", f"P@{k}", f"{len(at_k)} relevant in the top {k} / {k}")
    add(f"recall_{k}", f"recall@{k}", f"{len(at_k)} relevant in the top {k} / R = {R}")
    ap_terms = [f"{c}/{i}" for c, i in zip(found, rel_rank, strict=True)]
    add("map", "AP", f"(sum of P@i at each relevant rank i)/R = ({_sum(ap_terms)})/{R}")
    cut_terms = [t for t, i in zip(ap_terms, rel_rank, strict=True) if i <= k]
    add(f"map_cut_{k}", f"AP@{k}", f"({_sum(cut_terms)})/{R}")
    first = f"1/{rel_rank[0]}" if len(rel_rank) else "no relevant document retrieved: 0"
    add("recip_rank", "RR", first)
    rprec = int(np.sum(rel_rank <= R))
    add("Rprec", "R-prec", f"{rprec} relevant in the top R = {R} / {R}")
    suffix = " exp" if gain == "exponential" else ""
    dcg_k, idcg_k = _dcg_at(r, gain, k)
    terms = [
        f"{g:g}/log2({i + 1})"
        for g, i in zip(ranks[f"gain{suffix}"], ranks["rank"], strict=True)
        if g > 0 and i <= k
    ]
    ndcg_k = name_under(f"ndcg_cut_{k}", convention)
    if expected and ndcg_k in values:  # the mean DCG over the orders: IDCG does not move
        dcg_k = values[ndcg_k] * idcg_k
        terms = [f"mean nDCG@{k} x IDCG@{k} (the mean over every order of the ties)"]
    out.append(Final(f"DCG@{k}", f"DCG@{k}", dcg_k, _sum(terms) if terms else "0"))
    ideal = measures.gains_of(r.ideal_grade, gain)[:k]
    ideal_terms = [f"{g:g}/log2({i + 2})" for i, g in enumerate(ideal) if g > 0]
    out.append(Final(f"IDCG@{k}", f"IDCG@{k}", idcg_k, _sum(ideal_terms) if ideal_terms else "0"))
    add(f"ndcg_cut_{k}", f"nDCG@{k}", f"DCG@{k} / IDCG@{k} = {dcg_k:.4f} / {idcg_k:.4f}")
    add("ndcg", "nDCG", "DCG / IDCG over the whole ranking and every relevant document")
    if convention.gain != "exponential":
        add(f"ndcg_exp_cut_{k}", f"nDCG@{k} (exp)", "the same with gains 2^g - 1")
    err_terms = [
        f"{s:.4g}·{c:.4g}/{i}"
        for s, c, i in zip(ranks["ERR stop"], ranks["ERR reach"], ranks["rank"], strict=True)
        if s > 0 and i <= k
    ]
    add(f"err_{k}", f"ERR@{k}", f"sum of R_i·reach_i/i = {_sum(err_terms) or '0'}")
    add(f"judged_{k}", f"judged@{k}", f"{round(values.get(f'judged_{k}', 0) * k)} judged / {k}")
    add("bpref", "bpref", "judged non-relevant above each relevant, capped at R (trec_eval)")
    return out


def _dcg_at(r, gain: str, k: int) -> tuple[float, float]:
    """DCG and ideal DCG at cut-off k, summed from the measure kernel's terms."""
    terms = measures.discounted_gain(r, gain)
    dcg_k = float(np.sum(terms[r.rank <= k]))
    ideal = measures.ideal_terms(r, gain)[2]
    return dcg_k, float(np.sum(ideal[:k]))


def _sum(terms: list[str]) -> str:
    """Terms joined by ` + `, the middle elided past FORMULA_TERMS."""
    if len(terms) > FORMULA_TERMS:
        more = len(terms) - FORMULA_TERMS + 1
        terms = [*terms[: FORMULA_TERMS - 1], f"... ({more} more)"]
    return " + ".join(terms)


def _ties(p, rows, convention: Convention, k: int) -> tuple[list[str], pd.DataFrame | None]:
    """The tie groups (as the convention ordered them) and, if any, the range of values."""
    score = p.run_score[rows]
    if convention.score_precision == "float32":
        score = as_float32(score).astype(np.float64)
    starts = np.flatnonzero(np.r_[True, score[1:] != score[:-1]])
    ends = np.r_[starts[1:], len(score)]
    tied = [(start, end) for start, end in zip(starts, ends, strict=True) if end - start > 1]
    groups = []
    for start, end in tied:
        if start >= k:
            groups.append(f"{len(tied) - len(groups)} more tie groups below rank {k}")
            break
        docs = [str(d) for d in p.run_docno[rows[start:end]]]
        shown = ", ".join(docs[:TIE_DOCS]) + (
            f", ... ({len(docs) - TIE_DOCS} more)" if len(docs) > TIE_DOCS else ""
        )
        groups.append(
            f"ranks {start + 1}-{end} tie at score {score[start]:.6g}; "
            f"{convention.tie_break} order: {shown}"
        )
    if not groups:
        return [], None
    spec = measures.MeasureSpec(
        families=frozenset({"map", "P", "recall", "ndcg_cut", "recip_rank", "Rprec"}),
        P=(k,),
        recall=(k,),
        ndcg_cut=(k,),
    )
    table = {}
    for order in TIE_ORDERS:
        values, _, _, _ = evaluate_one(p, convention.replace(tie_break=order, ties="ordered"), spec)
        table[order] = {name: float(array[0]) for name, array in values.items()}
    return groups, pd.DataFrame(table)


def markdown(e: Explanation, wide: bool = False) -> str:
    """The explanation as Markdown: the per-rank tables, the ties, the final values."""
    c = e.convention
    lines = [
        f"topic {e.topic}, convention: {c.description}, relevant at grade >= {c.rel_level}",
        "",
    ]
    if c.ties == "expected":
        lines += [
            textwrap.fill(
                "ties expected: P@i, recall@i, AP@i and nDCG@i are means over every order "
                "of the tied documents; the documents, gains and DCG columns show one order "
                "(docno descending within each tie); ERR has no closed form (n/a).",
                WIDTH,
            ),
            "",
        ]
    first = ("rank", "docno", "grade")
    precision = ("P@i", "recall@i", "AP term", "AP@i")
    suffix = " exp" if c.gain == "exponential" else ""
    dcg = (
        "discount",
        "gain",
        "gain exp",
        f"DCG{suffix}@i",
        f"IDCG{suffix}@i",
        "nDCG@i",
        "nDCG exp@i",
    )
    err = ("ERR stop", "ERR reach", "ERR term", "ERR@i")
    sections = (
        [("relevant", *precision, *dcg, *err)] if wide else [("relevant", *precision), dcg, err]
    )
    for columns in sections:
        lines += [*_md_table(e.ranks, [*first, *columns]), ""]
    if e.ties:
        lines.append("ties (equal scores):")
        lines += [textwrap.fill(f"- {g}", WIDTH, subsequent_indent="  ") for g in e.ties]
        lines.append("")
        tie_range = e.tie_range.reset_index(names="measure")
        lines += [*_md_table(tie_range, ["measure", *TIE_ORDERS]), ""]
    lines.append("final values:")
    for f in e.finals:
        line = f"- {f.label} = {f.formula} = {_number(f.value)}"
        lines.append(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False))
    return "\n".join(lines) + "\n"


def _md_table(frame: pd.DataFrame, columns: Sequence[str], digits: int = 4) -> list[str]:
    cells = [[_cell(frame[c].iloc[i], digits) for c in columns] for i in range(len(frame))]
    head = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---:" if _numeric(frame[c]) else "---" for c in columns) + " |"
    return [head, rule] + ["| " + " | ".join(row) + " |" for row in cells]


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column)


def _cell(value, digits: int) -> str:
    if isinstance(value, float | np.floating):
        return "n/a" if np.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() and abs(value) > 1 else f"{value:.4f}"


def records(e: Explanation) -> dict:
    """The explanation as plain data (for --format json): every digit of every value."""
    return {
        "topic": e.topic,
        "convention": e.convention.description,
        "k": e.k,
        "ranks": e.ranks.to_dict(orient="records"),
        "ties": e.ties,
        "tie_range": None if e.tie_range is None else e.tie_range.to_dict(),
        "final": [
            {"measure": f.measure, "label": f.label, "value": f.value, "formula": f.formula}
            for f in e.finals
        ],
    }


def tsv(e: Explanation) -> str:
    """The per-rank table, a blank line, then the final values (every digit)."""
    ranks = e.ranks.to_csv(sep="\t", index=False, float_format=float_text, lineterminator="\n")
    finals = pd.DataFrame(
        [(f.measure, f.label, f.value, f.formula) for f in e.finals],
        columns=["measure", "label", "value", "formula"],
    ).to_csv(sep="\t", index=False, float_format=float_text, lineterminator="\n")
    return ranks + "\n" + finals
