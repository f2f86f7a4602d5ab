"""trec_eval's preference judgments (`-R prefs`, `-R qrels_prefs`) and the counts the
preference measures read, as get_prefs.c, get_qrels_prefs.c and form_prefs_counts.c
form them, topic by topic.

A prefs file has lines `topic group subgroup docno level`: within a judgment
subgroup (JSG) every document is preferred to those of a lower level; a judgment
group (JG) is one consistent set of preferences, the union of its subgroups with
the preferences they imply (transitively). `-R qrels_prefs` reads a qrels as
prefs: its second column is the group, each group one subgroup, the grade the
level. Level 0 marks a non-relevant document, levels above 0 relevant ones.

The run's documents are ranked by score (at the convention's precision), ties by
docno ascending (form_prefs_counts.c's order, not the qrels measures'), cut at
-M; the judged documents retrieved are numbered 0, 1, ... in rank order and the
judged documents not retrieved after them, in docno order. A preference A > B
is fulfilled when A is ranked above B, counted as retrieved (both retrieved),
implied (one of them) or not occurring (neither).
"""

from __future__ import annotations

import os
import re
from itertools import groupby

import numpy as np

from irscore.engine.measures.prefs import Group, TopicPrefs
from irscore.engine.reading import trec
from irscore.engine.reading.trec import TrecFormatError
from irscore.engine.system import arrays

_LEVEL = re.compile(r"[+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GRADE = re.compile(r"[+]?[0-9]{1,15}")


class PrefsError(ValueError):
    """Preferences trec_eval refuses (or would misread): named with their topic."""


def read_prefs(
    path: str | os.PathLike, qrels: bool
) -> dict[str, list[tuple[str, str, float, str]]]:
    """{topic: [(group, subgroup, level, docno)]} of a prefs file, or of a qrels read as
    prefs (`qrels`: the group is the second column, the subgroup "0"). Blank and `#`
    lines are skipped; a malformed line, or a level below 0 (trec_eval's prefs levels
    are non-negative; it would misread one), is an error naming the line."""
    width = 4 if qrels else 5
    out: dict[str, list[tuple[str, str, float, str]]] = {}
    for line_no, line, fields in trec.data_lines(path):
        if len(fields) != width:
            raise TrecFormatError(
                path, line_no, f"expected {width} columns, found {len(fields)}", line
            )
        if qrels:
            topic, group, docno, level = fields
            subgroup = "0"
            ok = _GRADE.fullmatch(level)
        else:
            topic, group, subgroup, docno, level = fields
            ok = _LEVEL.fullmatch(level)
        if not ok:
            what = "grade" if qrels else "level"
            problem = f"{what} {level!r} is not a number >= 0 (a preference level)"
            raise TrecFormatError(path, line_no, problem, line)
        out.setdefault(topic, []).append((group, subgroup, float(level), docno))
    return out


def topic_prefs(
    prefs: list[tuple[str, str, float, str]], ranked: list[str], topic: str
) -> TopicPrefs:
    """form_prefs_counts.c for one topic: `ranked` is the run's docnos in rank order
    (after -M), `prefs` the topic's (group, subgroup, level, docno) lines."""
    judged = sorted({docno for _, _, _, docno in prefs}, key=_bytes)
    in_prefs = set(judged)
    retrieved = [d for d in ranked if d in in_prefs]
    docid = {d: i for i, d in enumerate(retrieved)}
    seen = set(retrieved)
    for d in judged:
        if d not in seen:
            docid[d] = len(docid)
    n, njr = len(docid), len(retrieved)
    rows = sorted(
        ((g, s, level, docid[d], d) for g, s, level, d in prefs),
        key=lambda p: (_bytes(p[0]), _bytes(p[1]), -p[2], p[3]),
    )
    counts = np.zeros((n, n), dtype=np.int64)
    groups = []
    for _, members in groupby(rows, key=lambda p: p[0]):
        members = list(members)
        subgroups = len({p[1] for p in members})
        if subgroups > 1:
            groups.append(_matrix_group(members, n, njr, counts, topic))
        else:
            groups.append(_class_group(members, njr, counts, topic))
    return TopicPrefs(groups, n, njr, counts)


def _bytes(text: str) -> bytes:
    """strcmp's order."""
    return text.encode()


def _class_group(members: list, njr: int, counts: np.ndarray, topic: str) -> Group:
    """form_jg_ec and add_ec_pref_to_jg: one subgroup, its levels as classes."""
    ecs = [
        (level, np.array([p[3] for p in items], dtype=np.int64))
        for level, items in groupby(members, key=lambda p: p[2])
    ]
    g = Group(ecs=ecs)
    for i, (level, ranks) in enumerate(ecs):
        found = int((ranks < njr).sum())  # ranks ascending: the retrieved ones first
        if level > 0.0:
            g.num_rel_ret += found
            g.num_rel += len(ranks)
        else:
            g.num_nonrel_ret += found
            g.num_nonrel += len(ranks)
        for _, lower in ecs[i + 1 :]:
            a, b = np.meshgrid(ranks, lower, indexing="ij")
            if (a == b).any():
                raise PrefsError(f"topic {topic}: a document has two levels in one subgroup")
            np.add.at(counts, (a.ravel(), b.ravel()), 1)
            above = a < b
            g.ful_ret += int((above & (b < njr)).sum())
            g.ful_imp += int((above & (b >= njr) & (a < njr)).sum())
            g.poss_notoccur += int((above & (a >= njr)).sum())
            g.poss_ret += int((~above & (a < njr)).sum())
            g.poss_imp += int((~above & (a >= njr) & (b < njr)).sum())
            g.poss_notoccur += int((~above & (a >= njr) & (b >= njr)).sum())
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp
    return g


def _matrix_group(members: list, n: int, njr: int, counts: np.ndarray, topic: str) -> Group:
    """form_jg_pa, add_transitives and add_pa_pref_to_jg: several subgroups, their
    preferences in one matrix closed under transitivity."""
    pa = np.zeros((n, n), dtype=bool)
    rel = np.full(n, -1.0)
    for i, (_, sub, level, rank, docno) in enumerate(members):
        if (rel[rank] > 0.0 and level == 0.0) or (rel[rank] == 0.0 and level > 0.0):
            raise PrefsError(f"topic {topic}: document {docno} has level 0 and a level above 0")
        rel[rank] = level
        j = i + 1
        while j < len(members) and members[j][1] == sub and members[j][2] == level:
            j += 1
        while j < len(members) and members[j][1] == sub:
            pa[rank, members[j][3]] = True
            j += 1
    closure = pa | np.eye(n, dtype=bool)
    while True:
        step = (closure.astype(np.int64) @ closure.astype(np.int64)) > 0
        if (step == closure).all():
            break
        closure = step
    np.fill_diagonal(closure, False)
    if (closure & closure.T).any():
        raise PrefsError(f"topic {topic}: a group's preferences contradict each other")
    counts += closure
    g = Group(pa=closure, rel_array=rel)
    g.num_rel_ret = int((rel[:njr] > 0.0).sum())
    g.num_nonrel_ret = int((rel[:njr] == 0.0).sum())
    g.num_rel = g.num_rel_ret + int((rel[njr:] > 0.0).sum())
    g.num_nonrel = g.num_nonrel_ret + int((rel[njr:] == 0.0).sum())
    top = closure[:njr]
    g.poss_ret = int(np.tril(top[:, :njr], -1).sum())
    g.ful_ret = int(np.triu(top[:, :njr], 1).sum())
    g.ful_imp = int(top[:, njr:].sum())
    g.poss_imp = int(closure[njr:, :njr].sum())
    g.poss_notoccur = int(closure[njr:, njr:].sum())
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp
    return g


def rankings(run, convention) -> dict[str, list[str]]:
    """Each topic's docnos in form_prefs_counts.c's order: score descending (at the
    convention's precision), docno ascending, cut at -M; a docno twice is an error."""
    import pyarrow.compute as pc

    table = run.table
    topics = pc.cast(table["topic"], "string").to_pylist() if table.num_rows else []
    docnos = pc.cast(table["docno"], "string").to_pylist() if table.num_rows else []
    scores = arrays.one_array(table["score"]).to_numpy(zero_copy_only=False)
    if convention.score_precision == "float32":
        scores = scores.astype(np.float32)
    by_topic: dict[str, list[tuple[float, bytes, str]]] = {}
    for topic, docno, score in zip(topics, docnos, scores.tolist(), strict=True):
        by_topic.setdefault(topic, []).append((-score, docno.encode(), docno))
    out = {}
    for topic, rows in by_topic.items():
        rows.sort()
        ranked = [docno for _, _, docno in rows]
        if len(set(ranked)) != len(ranked):
            raise PrefsError(f"{run.source}: topic {topic} has a document twice")
        out[topic] = ranked[: convention.depth] if convention.depth else ranked
    return out


def evaluate(prefs: dict, run, convention, spec):
    """(values over the topics, topic names, `all` values, -c's topics without results)
    of the preference measures of `spec`, for the topics with prefs and results (and,
    under -c, the prefs topics without results: scored on an empty ranking under
    trec_eval 10, counted in the divisor only under trec_eval 9)."""
    from irscore.engine.judgment_groups import means_over_topics
    from irscore.engine.measures.registry import FAMILIES

    ranked = rankings(run, convention)
    both = [t for t in prefs if t in ranked]
    without_run = [t for t in prefs if t not in ranked] if convention.complete else []
    topics = sorted(both + without_run, key=_bytes)
    counted = [topic_prefs(prefs[t], ranked.get(t, []), t) for t in topics]
    values: dict[str, np.ndarray] = {"num_q": np.zeros(len(topics))}
    for name, family in FAMILIES.items():
        if family.judgments == "prefs" and name in spec.families:
            values.update(family.compute(counted, None, None))
    if "num_q" not in spec.families:
        del values["num_q"]
    names = np.array(topics, dtype=object)
    return values, names, means_over_topics(values, names, without_run, convention), without_run
