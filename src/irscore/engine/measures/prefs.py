"""The preference measures (m_prefs_*.c) from each topic's counts (`TopicPrefs`, formed
by `irscore.engine.prefs`):
fulfilled over possible preferences, summed over the groups (simp), averaged over
the groups (avgjg) or over document pairs (pair); `_ret` counts only preferences
between two retrieved documents, `_imp` leaves out those between two documents
not retrieved; the counts themselves; and avgjg_Rnonrel, which takes as many
non-relevant documents as the group has relevant ones.

Every kernel takes the list of topics' `TopicPrefs` and returns {name: values}.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Group:
    """One judgment group's counts (trec_eval's JG) and how its preferences are held:
    equivalence classes `ecs` [(level, docid ranks ascending)] when it has one subgroup,
    else the preference matrix `pa` (closed transitively) and each docid's level."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    poss_notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[tuple[float, np.ndarray]] | None = None
    pa: np.ndarray | None = None
    rel_array: np.ndarray | None = None


@dataclass
class TopicPrefs:
    """A topic's groups, its judged documents (retrieved first), and `counts[i, j]`: in
    how many groups docid i is preferred to docid j."""

    groups: list[Group]
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray = field(repr=False)


Kernel = Callable[[list, object, object], dict[str, np.ndarray]]  # (list of TopicPrefs, ...)


def ratio(ful: int, poss: int) -> float:
    """C's (double) ful / (double) poss: 0/0 is NaN (which a later sum carries)."""
    return ful / poss if poss else math.nan


def _per_topic(name: str, value: Callable[[TopicPrefs], float]) -> Kernel:
    def kernel(topics: list[TopicPrefs], ctx: object, params: object) -> dict[str, np.ndarray]:
        return {name: np.array([value(t) for t in topics], dtype=np.float64)}

    kernel.__doc__ = f"{name} of each topic."
    return kernel


def _all(g: Group) -> tuple[int, int]:
    return g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.poss_notoccur


def _ret(g: Group) -> tuple[int, int]:
    return g.ful_ret, g.poss_ret


def _imp(g: Group) -> tuple[int, int]:
    return g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp


def _simp(part: Callable[[Group], tuple[int, int]]) -> Callable[[TopicPrefs], float]:
    """Fulfilled over possible, summed over the groups; 0 without a possible one."""

    def value(t: TopicPrefs) -> float:
        ful = sum(part(g)[0] for g in t.groups)
        poss = sum(part(g)[1] for g in t.groups)
        return ful / poss if poss else 0.0

    return value


def _avgjg(part: Callable[[Group], tuple[int, int]]) -> Callable[[TopicPrefs], float]:
    """Each group's fulfilled over possible (groups without a possible one add nothing),
    averaged over all groups; 0 unless the sum is above 0."""

    def value(t: TopicPrefs) -> float:
        total = 0.0
        for g in t.groups:
            ful, poss = part(g)
            if poss:
                total += ful / poss
        return total / len(t.groups) if total > 0.0 else 0.0

    return value


def _pair(blocks: tuple[str, ...]) -> Callable[[TopicPrefs], float]:
    """The mean over document pairs with a preference of the share of groups preferring
    the first: pairs of retrieved documents (`ret`), retrieved and not (`imp`), both
    not retrieved (`not`: counted, adding 0), in trec_eval's loop order."""

    def value(t: TopicPrefs) -> float:
        c, r, n = t.counts, t.num_judged_ret, t.num_judged
        total, pairs = 0.0, 0
        for block in blocks:
            if block == "ret":
                i, j = np.triu_indices(r, 1)
            elif block == "imp":
                grid = np.meshgrid(np.arange(r), np.arange(r, n), indexing="ij")
                i, j = grid[0].ravel(), grid[1].ravel()
            else:
                i, j = np.triu_indices(n - r, 1)
                i, j = i + r, j + r
            forward, backward = c[i, j], c[j, i]
            has = (forward > 0) | (backward > 0)
            pairs += int(has.sum())
            if block != "not":
                for f, b in zip(forward[has].tolist(), backward[has].tolist(), strict=True):
                    total += f / (f + b)
        return total / pairs if pairs else 0.0

    return value


def _rnonrel(retrieved_only: bool) -> Callable[[TopicPrefs], float]:
    """m_prefs_avgjg_Rnonrel(_ret).c: a group with R relevant and N >= R non-relevant
    documents (retrieved ones for `_ret`) is counted with the first R non-relevant only;
    with N < R, R * (R - N) fulfilled preferences are added (and R_all * (R - N)
    possible ones, as trec_eval adds them, even for `_ret`)."""

    def value(t: TopicPrefs) -> float:
        total = 0.0
        for g in t.groups:
            big_r = g.num_rel_ret if retrieved_only else g.num_rel
            big_n = g.num_nonrel_ret if retrieved_only else g.num_nonrel
            if big_r >= big_n:
                ful, poss = _ret(g) if retrieved_only else _all(g)
                ful += g.num_rel_ret * (big_r - big_n)
                poss += g.num_rel * (big_r - big_n)
            else:
                ful, poss = _recalculated(g, t, retrieved_only)
            total += ratio(ful, poss)
        return total / len(t.groups) if total > 0.0 else 0.0

    return value


def _recalculated(g: Group, t: TopicPrefs, retrieved_only: bool) -> tuple[int, int]:
    """The group's counts with only its first R non-relevant documents (trec_eval's
    `recalculate`: the last class stands for the non-relevant ones)."""
    njr = t.num_judged_ret
    ful = poss = 0
    if g.ecs is not None:
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        classes = [ranks for _, ranks in g.ecs]
        if retrieved_only:
            classes = [ranks[ranks < njr] for ranks in classes]
        nonrel = g.ecs[-1][1][:keep]
        if retrieved_only:
            nonrel = nonrel[nonrel < njr]
        for i, upper in enumerate(classes):
            for lower in [*classes[i + 1 : len(classes) - 1], nonrel]:
                a, b = np.meshgrid(upper, lower, indexing="ij")
                won = (a < b) if retrieved_only else (a < b) & (a < njr)
                ful += int(won.sum())
                poss += int((~won).sum())
        return ful, poss + ful
    rel = g.rel_array
    n = t.num_judged
    scan = njr if retrieved_only else n
    seen = 0
    first_discarded = scan
    for i in range(scan):
        if rel[i] == 0.0:
            seen += 1
            if seen == g.num_rel + 1:
                first_discarded = i
                break
    kept = ~((np.arange(n) >= first_discarded) & (rel == 0.0))
    a = g.pa & kept[:, None] & kept[None, :]
    ful = int(np.triu(a[:njr, :njr], 1).sum())
    poss = int(np.tril(a[:njr, :njr], -1).sum())
    if not retrieved_only:
        ful += int(a[:njr, njr:].sum())
        poss += int(a[njr:, :njr].sum()) + int(a[njr:, njr:].sum())
    return ful, poss + ful


num_prefs_poss = _per_topic("prefs_num_prefs_poss", lambda t: sum(_all(g)[1] for g in t.groups))
num_prefs_ful = _per_topic("prefs_num_prefs_ful", lambda t: sum(_all(g)[0] for g in t.groups))
num_prefs_ful_ret = _per_topic(
    "prefs_num_prefs_ful_ret", lambda t: sum(g.ful_ret for g in t.groups)
)
simp = _per_topic("prefs_simp", _simp(_all))
pair = _per_topic("prefs_pair", _pair(("ret", "imp", "not")))
avgjg = _per_topic("prefs_avgjg", _avgjg(_all))
avgjg_rnonrel = _per_topic("prefs_avgjg_Rnonrel", _rnonrel(False))
simp_ret = _per_topic("prefs_simp_ret", _simp(_ret))
pair_ret = _per_topic("prefs_pair_ret", _pair(("ret",)))
avgjg_ret = _per_topic("prefs_avgjg_ret", _avgjg(_ret))
avgjg_rnonrel_ret = _per_topic("prefs_avgjg_Rnonrel_ret", _rnonrel(True))
simp_imp = _per_topic("prefs_simp_imp", _simp(_imp))
pair_imp = _per_topic("prefs_pair_imp", _pair(("ret", "imp")))
avgjg_imp = _per_topic("prefs_avgjg_imp", _avgjg(_imp))
