"""glibc keeps freed memory inside `freed_memory_kept` (arrays reuse it instead of
faulting in fresh pages) and behaves as usual again after it; `give_back_freed_memory`
returns the heap's free pages."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irscore.engine.system import allocator

MIB = 1 << 20


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def _free_in_heap() -> int:
    """Bytes glibc holds free in its heap (mallinfo2's fordblks)."""
    libc = allocator._libc()
    libc.mallinfo2.restype = _MallInfo2
    return libc.mallinfo2().fordblks


def _freed_bytes_kept() -> int:
    """How much more glibc holds free in its heap once a 100 MiB array is dropped than
    while it lives. Measured across the drop alone: a heap that already held free blocks
    (earlier tests in this process) may have lent some of them to the array."""
    array = np.ones(100 * MIB, dtype=np.uint8)
    alive = _free_in_heap()
    del array
    return _free_in_heap() - alive


@pytest.mark.allowed_skip(reason="glibc 2.33+ only: elsewhere there is nothing to tune")
@pytest.mark.skipif(
    allocator._libc() is None or not hasattr(allocator._libc(), "mallinfo2"),
    reason="glibc 2.33+ only",
)
def test_freed_memory_is_kept_inside_and_handed_back_after():
    with allocator.freed_memory_kept():
        assert _freed_bytes_kept() > 90 * MIB  # stays in the heap for the next array
    # afterwards a block over 32 MiB is mapped on its own and unmapped when freed
    assert _freed_bytes_kept() < 32 * MIB


def _resident() -> int:
    """This process's resident memory in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.allowed_skip(reason="glibc 2.33+ only: elsewhere there is nothing to give back")
@pytest.mark.skipif(
    allocator._libc() is None or not hasattr(allocator._libc(), "mallinfo2"),
    reason="glibc 2.33+ only",
)
def test_freed_heap_pages_are_given_back():
    with allocator.freed_memory_kept():  # 100 MiB from the heap, touched, then freed
        array = np.ones(100 * MIB, dtype=np.uint8)
        del array
        kept = _resident()
        allocator.give_back_freed_memory()
        # the pages leave the process; the heap still counts them free for reuse
        assert kept - _resident() > 90 * MIB
        assert _freed_bytes_kept() > 90 * MIB


def test_without_glibc_nothing_is_done(monkeypatch):
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())  # no mallopt, no malloc_trim
    allocator._libc.cache_clear()
    try:
        assert allocator._libc() is None
        with allocator.freed_memory_kept():
            pass
        allocator.give_back_freed_memory()
    finally:
        allocator._libc.cache_clear()


_JEMALLOC_FREED = """
import sys
import irscore.cli  # sets Arrow's jemalloc to purge at once, before pyarrow loads
import numpy as np, pyarrow as pa

pa.set_memory_pool(pa.jemalloc_memory_pool())
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20
piece = pa.array(np.ones(1 << 17))  # 1 MiB
before = resident()
arrays = [pa.concat_arrays([piece]) for _ in range(100)]  # 100 MiB, in the main thread
held = resident()
del arrays
print(before, held, resident())
"""


def _jemalloc_built_in() -> bool:
    import pyarrow as pa

    try:
        pa.jemalloc_memory_pool()
    except NotImplementedError:
        return False
    return True


@pytest.mark.allowed_skip(reason="pyarrow without jemalloc: its default pool is used")
@pytest.mark.skipif(not _jemalloc_built_in(), reason="pyarrow without jemalloc")
def test_the_cli_has_arrows_main_arena_give_freed_pages_back_at_once():
    """100 MiB of Arrow arrays made in the main thread and freed leave the process at
    once. Without `irscore.cli`'s setting, jemalloc's main arena kept about half of
    them resident (measured: 103 -> 203 -> 155 MiB), as a 7M-line run's blocks were."""
    env = {k: v for k, v in os.environ.items() if k != "JE_ARROW_MALLOC_CONF"}
    out = subprocess.run(
        [sys.executable, "-c", _JEMALLOC_FREED], env=env, capture_output=True, text=True, check=True
    ).stdout
    before, held, after = map(int, out.split())
    assert held - before > 90  # the arrays were resident
    assert after - before < 10  # and are gone


def test_a_users_own_jemalloc_setting_is_kept():
    env = os.environ | {"JE_ARROW_MALLOC_CONF": "dirty_decay_ms:5000"}
    code = "import os, irscore.cli; print(os.environ['JE_ARROW_MALLOC_CONF'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "dirty_decay_ms:5000"


_BLOCK_FAULTS = """
import resource, sys
from irscore.engine.reading import topic_blocks

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def score(block):
    block.table.column("score").to_numpy()

topic_blocks.read(sys.argv[1], "auto", 1 << 20, score, lambda: None)  # the heap grows once
before = faults()
topic_blocks.read(sys.argv[1], "auto", 1 << 20, score, lambda: None)
print(faults() - before)
"""


def _grouped_run(folder: Path) -> Path:
    """A run of 300 topics x 1,000 documents, grouped by topic (7.9 MB)."""
    path = folder / "run.txt"
    lines = (
        f"{t} Q0 d{(t * 7919 + r * 104729) % 1000003} {r + 1} {1000 - r}.5 x\n"
        for t in range(300)
        for r in range(1000)
    )
    path.write_text("".join(lines))
    return path


@pytest.mark.allowed_skip(reason="glibc only: elsewhere freed memory is not kept")
@pytest.mark.skipif(allocator._libc() is None, reason="glibc only")
def test_a_run_read_a_block_at_a_time_reuses_the_pages_of_the_block_before(tmp_path):
    """A 7.9 MB run read a block (1 MiB) at a time, a second time in one process: the
    blocks' arrays reuse the pages the blocks before them freed. Given back after each
    block (a `malloc_trim` per block, Arrow's jemalloc purging at once), every block
    faulted its pages in afresh: measured 12,800-13,000 faults, against 20-880 kept (64
    runs: the reading threads' timing spreads them); the text alone is 1,930 pages."""
    path = _grouped_run(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", _BLOCK_FAULTS, str(path)], capture_output=True, text=True, check=True
    ).stdout
    pages = path.stat().st_size // 4096
    assert int(out) < pages


@pytest.mark.allowed_skip(reason="glibc only: elsewhere Arrow keeps its own pool")
@pytest.mark.skipif(allocator._libc() is None, reason="glibc only")
def test_arrow_allocates_from_glibcs_heap_between_blocks_and_from_its_own_pool_after():
    import pyarrow as pa

    before = pa.default_memory_pool()
    with allocator.reused_between_blocks():
        assert pa.default_memory_pool().backend_name == "system"
    assert pa.default_memory_pool().backend_name == before.backend_name


@pytest.mark.allowed_skip(reason="glibc 2.33+ only: elsewhere there is nothing to tune")
@pytest.mark.skipif(
    allocator._libc() is None or not hasattr(allocator._libc(), "mallinfo2"),
    reason="glibc 2.33+ only",
)
def test_an_inner_block_leaves_an_outer_ones_freed_memory_kept():
    """The API keeps freed memory for a whole call, and a run streamed inside it keeps it
    for its blocks: the inner block's end must not settle the outer's thresholds."""
    with allocator.freed_memory_kept():
        with allocator.freed_memory_kept():
            pass
        assert _freed_bytes_kept() > 90 * MIB
    assert _freed_bytes_kept() < 32 * MIB


def test_the_heaps_free_pages_are_given_back_every_few_blocks(tmp_path, monkeypatch):
    """Nine blocks of about 1 MiB (7.9 MB; each ends where a topic ends) and a give-back
    after every third scored: after the 3rd, the 6th and the 9th."""
    from irscore.engine.reading import topic_blocks

    scored: list[str] = []
    monkeypatch.setattr(topic_blocks, "TRIM_EVERY", 3)
    monkeypatch.setattr(allocator, "give_back_freed_memory", lambda: scored.append("trim"))
    path = _grouped_run(tmp_path)
    topic_blocks.read(path, "auto", 1 << 20, lambda block: scored.append("block"), lambda: None)
    assert scored == (["block"] * 3 + ["trim"]) * 3


_ARENAS_AFTER_EVALUATE = """
import ctypes, sys
from irscore.cli import main
sys.argv = ["irscore", "evaluate", "-q", "-m", "all_trec", *sys.argv[1:]]
try:
    main()
except SystemExit as ended:
    assert not ended.code, ended.code
sys.stdout.flush()
ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


def _evaluate_in_a_process(
    script: str, folder: Path, env: dict[str, str]
) -> subprocess.CompletedProcess:
    """`script` run on two topics' qrels and run written in `folder` (their paths its
    arguments), with `env` and `irscore evaluate` on the engine (`IRSCORE_PLAIN_BYTES=0`)."""
    qrels, run = folder / "qrels", folder / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    run.write_text("1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.4 t\n2 Q0 d1 1 0.9 t\n")
    return subprocess.run(
        [sys.executable, "-c", script, str(qrels), str(run)],
        capture_output=True,
        text=True,
        env={**env, "IRSCORE_PLAIN_BYTES": "0"},
        check=True,
    )


@pytest.mark.allowed_skip(reason="glibc only: elsewhere there is nothing to tune")
@pytest.mark.skipif(allocator._libc() is None, reason="glibc only")
def test_evaluate_allocates_from_one_arena_on_every_thread(tmp_path):
    """`irscore evaluate` on the engine (`IRSCORE_PLAIN_BYTES=0`) reads its qrels and run on
    two threads and parses with Arrow's: glibc's `malloc_stats` still counts one arena
    (eight before `one_arena`, one per thread that allocated)."""
    done = _evaluate_in_a_process(_ARENAS_AFTER_EVALUATE, tmp_path, dict(os.environ))
    assert "map                   \t1\t" in done.stdout  # scored by the engine
    assert done.stderr.count("Arena ") == 1, done.stderr


def test_one_arena_sets_glibcs_arena_limit(monkeypatch):
    """`one_arena` is mallopt(M_ARENA_MAX = -8, 1), and nothing without glibc."""
    calls = []

    class Libc:
        def mallopt(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(allocator, "_libc", lambda: Libc())
    allocator.one_arena()
    assert calls == [(-8, 1)]
    monkeypatch.setattr(allocator, "_libc", lambda: None)
    allocator.one_arena()
    assert calls == [(-8, 1)]


_POOLS_AFTER_EVALUATE = """
import sys
from irscore.cli import main

main(["evaluate", *sys.argv[1:]])
import pyarrow as pa

wide = []
for line in open("/proc/self/maps"):
    start, end = (int(x, 16) for x in line.split()[0].split("-"))
    wide += [line.split()[0]] if end - start >= 1 << 30 else []
print(pa.default_memory_pool().backend_name, len(wide), file=sys.stderr)
"""


def _after_evaluate(tmp_path: Path, environment: dict[str, str]) -> str:
    """What `_POOLS_AFTER_EVALUATE` says of its process after `irscore evaluate`: Arrow's
    pool, and its mappings of 1 GiB or more."""
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    return _evaluate_in_a_process(_POOLS_AFTER_EVALUATE, tmp_path, env | environment).stderr


@pytest.mark.allowed_skip(reason="pyarrow without jemalloc: its default pool is used")
@pytest.mark.skipif(not _jemalloc_built_in(), reason="pyarrow without jemalloc")
def test_evaluate_maps_no_mimalloc_arena(tmp_path):
    """Reading a run's tag made Arrow allocate from its built-in default pool, which was
    mimalloc, which maps a 1 GiB arena: `irscore.cli` makes that default glibc's before
    pyarrow loads (`evaluate` reads with jemalloc); a user's own choice is kept."""
    assert _after_evaluate(tmp_path, {}) == "jemalloc 0\n"
    assert _after_evaluate(tmp_path, {"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"}) == "jemalloc 1\n"


def test_the_commands_allocate_from_glibcs_heap():
    """Every command's Arrow pool (but `evaluate`'s reading) is glibc's: mimalloc kept
    what they freed (compare on 100 TREC DL runs peaked at 190 MiB, 144 with glibc's)."""
    check = "import irscore.cli, pyarrow as pa; print(pa.default_memory_pool().backend_name)"
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env)
    assert done.stdout == "system\n", done.stderr
