"""Every measure name irscore accepts, by family: what `irscore measures` prints and
`irscore.measures()` returns (the syntax, the parameters, where the name comes from,
and the convention it implies)."""

from __future__ import annotations

import re
from typing import Any

from irscore.engine.measures.peer_names import NAME_FAMILIES
from irscore.engine.measures.registry import FAMILIES, Family
from irscore.engine.ranking.conventions import describe

COLUMNS = ("name", "measure", "parameters", "provenance", "convention")
_PARAMETERS = {
    "cutoffs": "cut-offs k",
    "multiples": "multiples of R",
    "levels": "recall levels",
    "numbers": "numbers",
    "named": "p=NUMBER",
    "gains": "LEVEL=GAIN,...",
    "cut_gains": "LEVEL=GAIN,...@k",
}


def _parameters(family: Family) -> str:
    """A family's -m parameters and their default."""
    if family.params is None:
        return ""
    text = _PARAMETERS[family.params.kind]
    if family.params.kind == "named":  # rbp's p=NUMBER, inst's T=NUMBER,min_rel=...
        text = ",".join(f"{name}=NUMBER" for name in family.params.names)
    default = family.params.default
    if isinstance(default, tuple):
        return f"{text} (default {','.join(f'{v:g}' for v in default)})"
    return text


def _provenance(family: Family) -> str:
    if family.trec_eval:
        return "trec_eval " + "/".join(map(str, family.trec_eval))
    return f"irscore (as {family.peer})" if family.peer else "irscore"


def rows() -> list[dict[str, Any]]:
    """One row per name family: trec_eval's and irscore's in print order, then the peers'."""
    out = []
    for name, family in FAMILIES.items():
        if family.compute is None:
            continue
        syntax = f"{name}.PARAMS, {name}_k" if family.params else name
        if family.params is not None and family.params.kind != "cutoffs":
            syntax = f"{name}.PARAMS"
        out.append(
            {
                "name": syntax,
                "measure": name,
                "parameters": _parameters(family),
                "provenance": _provenance(family),
                "convention": "the call's",
            }
        )
    for peer in NAME_FAMILIES:
        out.append(
            {
                "name": peer.syntax,
                "measure": peer.measure,
                "parameters": peer.parameters,
                "provenance": peer.peer
                if peer.provider == peer.peer
                else f"{peer.peer} ({peer.provider})",
                "convention": describe(dict(peer.changes)) if peer.changes else "the call's",
            }
        )
    return out


def text() -> str:
    """The rows as an aligned text table."""
    table = [dict(zip(COLUMNS, COLUMNS, strict=True)), *rows()]
    widths = {c: max(len(str(r[c])) for r in table) for c in COLUMNS}
    lines = ["  ".join(str(r[c]).ljust(widths[c]) for c in COLUMNS).rstrip() for r in table]
    return "\n".join(lines) + "\n"


# a concrete value for each placeholder of a row's syntax (`P@k`, `RBP(rel=r[,p=x])`)
_PLACEHOLDERS = (
    (re.compile(r"@k\b"), "@10"),
    (re.compile(r"_k$"), "_10"),
    (re.compile(r"=r\b"), "=2"),
    (re.compile(r"=x\b"), "=0.5"),
    (re.compile(r"beta=b\b"), "beta=0.5"),
    (re.compile(r"normalize=b\b"), "normalize=True"),
    (re.compile(r"max_rel=m\b"), "max_rel=2"),
    (re.compile(r"^IPrec@r$"), "IPrec@0.5"),
    (re.compile(r"^rbp@p$"), "rbp@95"),
    (re.compile(r"\{g:v,\.\.\.\}"), "{0:0,1:1,2:3}"),
)
# -m parameters of each kind, for `FAMILY.PARAMS`
_EXAMPLE_PARAMS = {
    "cutoffs": "5,10",
    "multiples": "0.5,1",
    "levels": "0.25,0.5",
    "gains": "0=0,1=1,2=3",
    "cut_gains": "0=0,1=1,2=3@5,10",
}


def examples() -> list[tuple[str, str]]:
    """(a row's syntax, one concrete name of it) for every spelling of every row of
    `rows()`: each placeholder filled in, each optional `[part]` with and without,
    ranx's `-lN` as `-l2`. What a test feeds to every surface that reads names."""
    out = []
    for row in rows():
        family = FAMILIES.get(row["measure"])
        for spelling in _spellings(row["name"]):
            name = spelling
            if family is not None and family.params is not None:
                name = name.replace(".PARAMS", f".{_params(family)}")
            for pattern, value in _PLACEHOLDERS:
                name = pattern.sub(value, name)
            out.append((row["name"], name))
            if "-lN" in row["parameters"]:
                out.append((row["name"], f"{name}-l2"))
    return out


def _spellings(syntax: str) -> list[str]:
    """`AP, AP@k, AP(rel=r)` as its spellings; `ndcg_burges[@k]` as both."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(syntax):
        depth += char in "([{"
        depth -= char in ")]}"
        if syntax.startswith(", ", i) and depth == 0:
            parts.append(syntax[start:i])
            start = i + 2
    parts.append(syntax[start:])
    out = []
    for part in parts:
        optional = re.search(r"\[([^\[\]]*)\]", part)
        if optional is None:
            out.append(part)
        else:
            out += _spellings(part[: optional.start()] + part[optional.end() :])
            out += _spellings(part[: optional.start()] + optional[1] + part[optional.end() :])
    return out


def _params(family: Family) -> str:  # a family with parameters
    """Example -m parameters of a family (`P.5,10`, `rbp.p=0.5`, `utility.1,1,1,1`)."""
    kind = family.params
    if kind.kind == "named":
        return f"{kind.names[0]}=0.5"
    if kind.kind == "numbers":
        return ",".join(["1"] * (kind.count or 1))
    return _EXAMPLE_PARAMS[kind.kind]


# the words the names tables use for each convention decision a peer implies
_WORDS = {
    ("topics", "all_qrels"): "`-c`",
    ("score_precision", "float64"): "float64 scores",
    ("tie_break", "docno_asc"): "ties by docno ascending",
    ("tie_break", "file_order"): "ties in file order",
    ("unjudged", "removed"): "`-J`",
}


def convention_words(changes: tuple[tuple[str, Any], ...]) -> str:
    """A peer's convention in the names tables' words (`-c`, float64 scores, ...)."""
    order = list(_WORDS)
    known = sorted((c for c in changes if c in _WORDS), key=order.index)
    words = [_WORDS[c] for c in known]
    words += [f"`-l {value}`" for key, value in changes if key == "rel_level"]
    return ", ".join(words) or "trec_eval's topics"


def _cell(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in dict.fromkeys(names))


def names_table() -> str:
    """docs/measure-names.md's table of every peer name family, from NAME_FAMILIES: the
    example names, the peer (its implementation), the irscore measures they are, the
    convention, and the difference irscore keeps."""
    from irscore.engine.measures.peer_names import parse_peer_name

    lines = [
        "| name | peer (implementation) | irscore measure | convention | documented difference |",
        "|---|---|---|---|---|",
    ]
    for family in NAME_FAMILIES:
        parsed = [parse_peer_name(name) for name in family.examples]
        peer = (
            family.peer if family.provider == family.peer else f"{family.peer} ({family.provider})"
        )
        cells = [
            _cell(list(family.examples)),
            peer,
            _cell([p.printed for p in parsed if p is not None]),
            convention_words(family.changes),
            family.difference,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# the names the README's short table shows, each read from docs/measure-names.md's table
README_NAMES = ("nDCG@10", "P(rel=2)@5", "AP", "RR@10", "Judged@10", "ERR@20", "RBP(rel=1)")
README_NAMES += ("SetF(beta=0.5)", "INST(max_rel=3)", "Compat", "ERR_IA@20")
README_NAMES += ("ndcg@10", "mrr", "dcg_burges@10", "hit_rate@10", "f1@10")


def readme_table(page: str) -> str:
    """The README's short table, from the rows of `page` (docs/measure-names.md's text)
    naming README_NAMES: the name, its peer, the irscore measure and the convention."""
    from irscore.engine.measures.peer_names import parse_peer_name

    rows = {}
    for line in page.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            for name in re.findall(r"`([^`]+)`", cells[0]):
                rows[name] = cells
    lines = ["| name | peer | irscore measure | convention |", "| --- | --- | --- | --- |"]
    for name in README_NAMES:
        peer = rows[name][1].split(" (")[0]
        parsed = parse_peer_name(name)
        lines.append(
            f"| `{name}` | {peer} | `{parsed.printed}` | {convention_words(parsed.changes)} |"
        )
    return "\n".join(lines) + "\n"
