"""How messages and tables name things: a few items of a long list, runs told apart."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def few(items: Iterable[str], shown: int = 10) -> str:
    """The first `shown` items, then how many more: `4, 5, 6 and 219 more`."""
    items = list(items)
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def topic_order(topics: Iterable[str]) -> list[str]:
    """Topics in natural order: shorter numbers first, so `9` comes before `10`."""
    return sorted(topics, key=lambda t: (len(t), t))


def run_names(paths: Sequence[str], tags: Sequence[str]) -> list[str]:
    """The runs' tags; their paths where tags repeat; A, B, ... where paths repeat too."""
    if len(set(tags)) == len(tags):
        return list(tags)
    if len(set(paths)) == len(paths):
        return list(paths)
    return [chr(ord("A") + i) if i < 26 else f"run{i + 1}" for i in range(len(paths))]


def run_heads(paths: Sequence[str], tags: Sequence[str], own_first: bool) -> list[bytes]:
    """With several runs in trec_eval's layout, the line starting each run's block:
    trec_eval's runid line (`-m runid`) naming the run as `run_names` does (its tag, or
    its file where tags repeat); empty where the block's own first line is that line
    already (`own_first`: its runid line leads it, no -q), and for one run, whose
    output stays trec_eval's bytes."""
    if len(paths) < 2:
        return [b""] * len(paths)
    return [
        b"" if own_first and name == tag else f"{'runid':<22s}\tall\t{name}\n".encode()
        for name, tag in zip(run_names(paths, tags), tags, strict=True)
    ]
