"""One run's chunks of topics scored on both cores: a forked child scores the later half
of the chunks while this process scores the earlier half.

Two threads share Python's lock, which the chunks' many short steps and their text
take in turns: 100,000 one-document topics kept 1.2 of two cores busy. A child shares
the read inputs without copying them. It writes its per-topic text to a file of its
own, and its values (what the `all` lines need) to another; this process then adds
those values after its own, chunk by chunk in topic order, so the sums have the bits
of one loop. When the child fails (an error in its chunks, or it is killed), this
process scores the later half itself, so an error is raised as one loop raises it.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable, Iterable
from typing import BinaryIO

import numpy as np

from irscore.engine.evaluate import TopicValues
from irscore.engine.measures.registry import is_text
from irscore.engine.ranking.rank import Notes
from irscore.engine.system import forked

Add = Callable[[dict[str, np.ndarray], np.ndarray, "float | None", Notes], None]


def possible(chunks: int) -> bool:
    """True when a second process can take half of these chunks."""
    return chunks >= 2 and forked.possible()


def scored(
    makers: list[Callable[[], TopicValues]],
    take: Callable[[TopicValues], None],
    lines: Callable[[TopicValues], Iterable[bytes]],
    add: Add,
) -> BinaryIO | None:
    """Score every chunk (`makers`, in topic order). This process gives each of its
    chunks to `take` (which writes its lines and adds its values); the child writes
    its chunks' `lines` to a file, and their values, `filled`, `num_rel_all` and notes
    are given to `add` here after this process's, in order. Returns the file of the
    child's lines, to be read after what `take` wrote, or None when `take` had every
    chunk."""
    half = len(makers) // 2
    theirs = tempfile.TemporaryFile()  # noqa: SIM115 (returned, or closed below)
    values = tempfile.TemporaryFile()  # noqa: SIM115 (closed below)

    def here(chunks: list[Callable[[], TopicValues]]) -> None:
        """Score `chunks` in this process."""
        for make in chunks:
            take(make())

    def work(which: int) -> list | None:
        """The earlier half here (None), or the later half in the child (its records)."""
        if which == 0:
            return here(makers[:half])
        saved = []
        for make in makers[half:]:
            part = make()
            theirs.writelines(lines(part))
            saved.append(_saved(part, values))
        theirs.flush()
        values.flush()
        return saved

    with values:
        try:
            done = forked.on_two_cores(work, [0, 1])
        except BaseException:
            theirs.close()
            raise
        if done is None:  # the child failed: the later half here, an error raised in order
            theirs.close()
            here(makers[half:])
            return None
        for record in done[1]:
            add(*_loaded(record, values))
    return theirs


def _saved(part: TopicValues, file: BinaryIO) -> tuple:
    """Write a chunk's arrays to `file` (at its end); what `_loaded` needs to read them
    back, as plain data for `marshal`."""
    arrays = [(name, a) for name, a in part.values.items() if not is_text(name)]
    arrays.append(("", part.filled))
    places = []
    for name, array in arrays:
        data = np.ascontiguousarray(array).tobytes()
        places.append((name, array.dtype.str, file.tell(), len(data)))
        file.write(data)
    return places, part.num_rel_all, dataclasses.asdict(part.notes)


def _loaded(record: tuple, file: BinaryIO) -> tuple:
    """(values, filled, num_rel_all, notes) of a chunk `_saved` wrote to `file`."""
    places, num_rel_all, notes = record
    arrays = {}
    for name, dtype, at, size in places:
        data = os.pread(file.fileno(), size, at)
        if len(data) != size:
            raise OSError(f"the values' file ended at {at + len(data)} of {at + size} bytes")
        arrays[name] = np.frombuffer(data, dtype)
    filled = arrays.pop("")
    return arrays, filled, num_rel_all, Notes(**notes)
