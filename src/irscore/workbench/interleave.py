"""Interleaving two runs with simulated users: would users prefer B online?

Team-draft interleaving (Radlinski, Kurup & Joachims 2008) merges the two
rankings of a query round by round: a coin decides which run drafts first in
the round, each run then adds its best document not yet placed, and each
placed document belongs to the team that drafted it. Balanced interleaving
(Joachims 2002) merges with one coin per impression deciding which run leads.
A cascade click model (Hofmann, Whiteson & de Rijke 2011) scans the merged
list top down, clicks a document with a probability set by its grade and, after
a click, stops with another; the run whose documents get more clicks wins the
impression. Everything random comes from one seeded numpy Generator: the same
inputs and seed give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from irscore.engine.ranking.rank import NOT_JUDGED, map_grades

METHODS = ("team_draft", "balanced")
# P(click | grade 0, 1, 2+) and P(stop after a click | grade 0, 1, 2+): Hofmann,
# Whiteson & de Rijke (2011), Table 2, for three relevance levels; `random` clicks
# half of what it sees whatever the grade and never stops (the control).
CLICK_MODELS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "perfect": ((0.0, 0.5, 1.0), (0.0, 0.0, 0.0)),
    "navigational": ((0.05, 0.5, 0.95), (0.2, 0.5, 0.9)),
    "informational": ((0.4, 0.7, 0.9), (0.1, 0.3, 0.5)),
    "random": ((0.5, 0.5, 0.5), (0.0, 0.0, 0.0)),
}
A, B = "A", "B"


class InterleaveError(ValueError):
    """Runs that cannot be interleaved (no shared topic, bad options)."""


@dataclass(frozen=True)
class Impression:
    """One simulated impression: the query, the merged list and what the user did."""

    query: str
    docs: tuple[str, ...]
    teams: tuple[str, ...]
    grades: tuple[int, ...]
    clicks: tuple[bool, ...]
    winner: str  # "A", "B" or "tie"


@dataclass(frozen=True)
class Outcome:
    """Wins, ties and the sign test over every impression, with the running share."""

    impressions: list[Impression]
    wins_a: int
    wins_b: int
    ties: int
    share_b: float  # wins of B over the decided impressions (NaN if none)
    p_value: float  # two-sided sign test of share_b against 1/2
    running_share: np.ndarray  # share_b after each impression
    running_p: np.ndarray  # the sign test's p after each impression

    def settled_after(self, alpha: float) -> int | None:
        """Impressions after which the sign test stays below alpha for good (None: never)."""
        above = np.flatnonzero(~(self.running_p < alpha))
        if len(above) and above[-1] == len(self.running_p) - 1:
            return None
        return int(above[-1]) + 2 if len(above) else 1


def team_draft(
    a: Sequence[str], b: Sequence[str], length: int, coins: Sequence[bool]
) -> tuple[list[str], list[str]]:
    """The team-draft list of `length` documents and each one's team.

    `coins[j]` True means A drafts first in round j. A run whose documents are
    all placed stops drafting; the other fills the list alone.
    """
    docs: list[str] = []
    teams: list[str] = []
    placed: set[str] = set()
    next_of = {A: 0, B: 0}
    ranking = {A: a, B: b}
    for coin in coins:
        for team in (A, B) if coin else (B, A):
            if len(docs) >= length:
                return docs, teams
            ranked = ranking[team]
            while next_of[team] < len(ranked) and ranked[next_of[team]] in placed:
                next_of[team] += 1
            if next_of[team] < len(ranked):
                doc = ranked[next_of[team]]
                docs.append(doc)
                teams.append(team)
                placed.add(doc)
        if all(next_of[t] >= len(ranking[t]) for t in (A, B)) or len(docs) >= length:
            break
    return docs, teams


def balanced(a: Sequence[str], b: Sequence[str], length: int, a_first: bool) -> list[str]:
    """Balanced interleaving: the run that has placed fewer of its own top documents adds
    its next one (the coin `a_first` breaks the equal case); placed documents are skipped."""
    docs: list[str] = []
    placed: set[str] = set()
    ka = kb = 0
    while len(docs) < length and (ka < len(a) or kb < len(b)):
        take_a = kb >= len(b) or (ka < len(a) and (ka < kb or (ka == kb and a_first)))
        doc = a[ka] if take_a else b[kb]
        if take_a:
            ka += 1
        else:
            kb += 1
        if doc not in placed:
            docs.append(doc)
            placed.add(doc)
    return docs


def balanced_winner(a: Sequence[str], b: Sequence[str], docs: Sequence[str], clicks) -> str:
    """Joachims' credit: with the lowest click at the top-k of the run ranking it highest,
    the run with more clicked documents in its own top k wins."""
    clicked = [d for d, c in zip(docs, clicks, strict=True) if c]
    if not clicked:
        return "tie"
    lowest = clicked[-1]
    k = min(_position(a, lowest), _position(b, lowest))
    in_a = sum(d in set(a[:k]) for d in clicked)
    in_b = sum(d in set(b[:k]) for d in clicked)
    return A if in_a > in_b else B if in_b > in_a else "tie"


def _position(ranking: Sequence[str], doc: str) -> int:
    """1-based position of doc in ranking, or len + 1 when absent."""
    try:
        return ranking.index(doc) + 1
    except ValueError:
        return len(ranking) + 1


def cascade_clicks(grades: Sequence[int], model: str, rng: np.random.Generator) -> list[bool]:
    """Clicks of one cascade user down the list: click with P(c | g), then stop with P(s | g)."""
    click_p, stop_p = CLICK_MODELS[model]
    clicks = []
    stopped = False
    for grade in grades:
        level = min(max(grade, 0), 2)
        # two draws per position whatever happens: the stream does not depend on outcomes
        click_draw, stop_draw = rng.random(2)
        click = not stopped and click_draw < click_p[level]
        clicks.append(bool(click))
        if click and stop_draw < stop_p[level]:
            stopped = True
    return clicks


def rankings(run: pd.DataFrame, depth: int | None = None) -> dict[str, list[str]]:
    """Each topic's docnos in trec_eval's order (score descending, then docno descending),
    the first `depth` of them (None: all)."""
    ordered = run.sort_values("docno", ascending=False, kind="stable")
    ordered = ordered.sort_values(["topic", "score"], ascending=[True, False], kind="stable")
    if depth is not None:
        ordered = ordered.groupby("topic", sort=False).head(depth)
    topics = ordered["topic"].astype(str).to_numpy()
    docs = ordered["docno"].astype(str).tolist()
    starts = np.flatnonzero(np.r_[True, topics[1:] != topics[:-1]]) if len(topics) else []
    ends = [*starts[1:], len(topics)]
    return {topics[s]: docs[s:e] for s, e in zip(starts, ends, strict=True)}


def grade_lookup(qrels: pd.DataFrame, grades: str = "raw") -> dict[tuple[str, str], int]:
    """(topic, docno) -> grade under a grade mapping (`raw` or `cranfield_cleverdon`)."""
    mapped = map_grades(qrels["grade"].to_numpy(dtype=np.int64), grades)
    return dict(zip(zip(qrels["topic"], qrels["docno"], strict=True), mapped.tolist(), strict=True))


def simulate(
    qrels: pd.DataFrame,
    run_a: pd.DataFrame,
    run_b: pd.DataFrame,
    model: str = "perfect",
    impressions: int = 10_000,
    length: int = 10,
    seed: int = 0,
    method: str = "team_draft",
    grades: str = "raw",
) -> Outcome:
    """Simulate `impressions` impressions of the two runs interleaved and count the wins.

    Each impression draws a query uniformly among the topics both runs answer;
    unjudged and negative grades count as grade 0 for the click model.
    """
    depth = 2 * max(length, 1)  # what a merged list of `length` can reach in either run
    return simulate_rankings(
        grade_lookup(qrels, grades),
        rankings(run_a, depth),
        rankings(run_b, depth),
        model,
        impressions,
        length,
        seed,
        method,
    )


def simulate_rankings(
    judged: Mapping[tuple[str, str], int],
    by_a: Mapping[str, list[str]],
    by_b: Mapping[str, list[str]],
    model: str = "perfect",
    impressions: int = 10_000,
    length: int = 10,
    seed: int = 0,
    method: str = "team_draft",
) -> Outcome:
    """`simulate` on rankings already built (`rankings`) and grades looked up (`grade_lookup`)."""
    if model not in CLICK_MODELS:
        raise InterleaveError(f"unknown click model {model!r}; choose from {list(CLICK_MODELS)}")
    if method not in METHODS:
        raise InterleaveError(f"unknown method {method!r}; choose from {list(METHODS)}")
    if impressions < 1 or length < 1:
        raise InterleaveError("--impressions and --length take positive numbers")
    queries = sorted(set(by_a) & set(by_b))
    if not queries:
        raise InterleaveError("the two runs answer no topic in common")
    rng = np.random.Generator(np.random.PCG64(seed))
    shown = []
    for query in rng.choice(queries, size=impressions).tolist():
        a, b = by_a[query], by_b[query]
        if method == "team_draft":
            docs, teams = team_draft(a, b, length, (rng.random(length) < 0.5).tolist())
        else:
            docs = balanced(a, b, length, bool(rng.random() < 0.5))
            teams = [_contributor(a, b, d) for d in docs]
        doc_grades = [_grade(judged, query, d) for d in docs]
        clicks = cascade_clicks(doc_grades, model, rng)
        if method == "team_draft":
            in_a = sum(c and t == A for c, t in zip(clicks, teams, strict=True))
            in_b = sum(c and t == B for c, t in zip(clicks, teams, strict=True))
            winner = A if in_a > in_b else B if in_b > in_a else "tie"
        else:
            winner = balanced_winner(a, b, docs, clicks)
        shown.append(
            Impression(query, tuple(docs), tuple(teams), tuple(doc_grades), tuple(clicks), winner)
        )
    return outcome(shown)


def _contributor(a: Sequence[str], b: Sequence[str], doc: str) -> str:
    """Which run ranks a balanced-interleaving document higher (AB: equally high)."""
    pa, pb = _position(a, doc), _position(b, doc)
    return A if pa < pb else B if pb < pa else "AB"


def _grade(judged: Mapping[tuple[str, str], int], query: str, doc: str) -> int:
    grade = judged.get((query, doc), 0)
    return 0 if grade == NOT_JUDGED else grade


def outcome(impressions: list[Impression]) -> Outcome:
    """Wins, ties, B's share of the decided impressions and its two-sided sign test."""
    winners = np.array([i.winner for i in impressions])
    b_won = np.cumsum(winners == B)
    decided = np.cumsum(winners != "tie")
    with np.errstate(invalid="ignore", divide="ignore"):
        running_share = b_won / decided
    running_p = sign_test(b_won, decided)
    wins_b, n = int(b_won[-1]), int(decided[-1])
    return Outcome(
        impressions=impressions,
        wins_a=n - wins_b,
        wins_b=wins_b,
        ties=len(impressions) - n,
        share_b=float(running_share[-1]),
        p_value=float(running_p[-1]),
        running_share=running_share,
        running_p=running_p,
    )


def sign_test(successes: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial test of p = 1/2 (1 for no trials): 2 min(P(X<=x), P(X>=x))."""
    successes, trials = np.asarray(successes), np.asarray(trials)
    lower = stats.binom.cdf(successes, trials, 0.5)
    upper = stats.binom.sf(successes - 1, trials, 0.5)
    return np.where(trials > 0, np.minimum(1.0, 2.0 * np.minimum(lower, upper)), 1.0)


LOG_HEADER = "impression\tquery\tdocs\tteams\tgrades\tclicks\twinner\n"


def log_lines(o: Outcome) -> str:
    """Every impression, one tab-separated line each (lists comma-separated)."""
    lines = [LOG_HEADER]
    for number, i in enumerate(o.impressions, 1):
        lines.append(
            f"{number}\t{i.query}\t{','.join(i.docs)}\t{','.join(i.teams)}\t"
            f"{','.join(map(str, i.grades))}\t{','.join('1' if c else '0' for c in i.clicks)}\t"
            f"{i.winner}\n"
        )
    return "".join(lines)


def summary(o: Outcome, name_a: str, name_b: str, alpha: float = 0.05) -> str:
    """The verdict in a few lines: wins, ties, B's share with its p, when it settled."""
    settled = o.settled_after(alpha)
    verdict = (
        "no preference at this alpha"
        if not o.p_value < alpha
        else f"users prefer {name_b if o.share_b > 0.5 else name_a}"
    )
    when = "never" if settled is None else f"after {settled} impressions"
    return (
        f"A = {name_a}; B = {name_b}; {len(o.impressions)} impressions\n"
        f"wins A: {o.wins_a}\nwins B: {o.wins_b}\nties: {o.ties}\n"
        f"share of decided impressions B wins: {_share(o.share_b)} "
        f"(two-sided sign test p = {o.p_value:.4g})\n"
        f"verdict (alpha {alpha:g}): {verdict}; p < alpha for good: {when}\n"
    )


def _share(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{value:.4f}"
