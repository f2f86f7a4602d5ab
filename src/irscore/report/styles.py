"""Each run's colour and marker, from its name: the same in every figure, whatever runs join.

A run's preferred colour and marker come from a stable hash of its name (sha256,
not Python's salted `hash`), so they do not depend on where the run sits in the
config or which other runs are drawn. Two runs that prefer the same colour are
told apart in config order: the earlier keeps it, the later takes the next free
colour of the palette; past 12 runs, the next free (colour, marker) pair (past 84,
styles repeat). Adding
a run at the end of the config therefore changes no other run's style, and up
to 12 runs never share a colour.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

# 12 colours told apart on screen and in print: Okabe & Ito's colour-blind-safe set
# (without its yellow, too pale on white), three of Paul Tol's muted scheme, and two
# of Kelly's colours of maximum contrast.
PALETTE = (
    "#0072B2",  # blue
    "#D55E00",  # vermilion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#882255",  # wine
    "#332288",  # indigo
    "#999933",  # olive
    "#E31A1C",  # red
    "#8C564B",  # brown
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


class Style(NamedTuple):
    """How one run is drawn."""

    color: str
    marker: str

    def kwargs(self) -> dict[str, str]:
        """As keyword arguments of matplotlib's `plot`."""
        return {"color": self.color, "marker": self.marker}


def preferred(run: str) -> tuple[int, int]:
    """The palette and marker positions the run's name hashes to."""
    digest = int.from_bytes(hashlib.sha256(run.encode()).digest()[:8], "big")
    return digest % len(PALETTE), (digest // len(PALETTE)) % len(MARKERS)


def run_styles(runs: Sequence[str]) -> dict[str, Style]:
    """The style of every run of `runs` (config order: earlier runs keep their colour)."""
    taken: set[tuple[int, int]] = set()
    styles = {}
    for run in dict.fromkeys(runs):
        colour, marker = preferred(run)
        used = {c for c, _ in taken}
        if len(used) < len(PALETTE):  # a free colour: the first from the preferred one on
            while colour in used:
                colour = (colour + 1) % len(PALETTE)
        elif len(taken) < len(PALETTE) * len(MARKERS):  # the first free pair, colours first
            while (colour, marker) in taken:
                colour = (colour + 1) % len(PALETTE)
                if colour == preferred(run)[0]:
                    marker = (marker + 1) % len(MARKERS)
        taken.add((colour, marker))
        styles[run] = Style(PALETTE[colour], MARKERS[marker])
    return styles
