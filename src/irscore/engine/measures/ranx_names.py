"""ranx 0.3.21's metric names (`ndcg@10`, `map@100-l2`, `dcg_burges@5`), each read as an
irscore measure under ranx's convention (`evaluate(..., make_comparable=True)`)."""

from __future__ import annotations

from irscore.engine.measures.peer_common import RANX, PeerName, PeerNameError, peer, rel


def _ranx(family: str | None, cut_family: str | None, binary: bool = True):
    """A reader of a ranx metric: `name`, `name@k`, and `-lN` for the binary ones."""

    def read(name: str, k: int | None, level: int) -> PeerName:
        if level != 1 and not binary:
            raise PeerNameError(f"measure {name!r}: irscore reproduces -l only for binary metrics")
        changes = (*RANX, *rel(name, level))
        if k is None:
            if family is None:
                raise PeerNameError(f"measure {name!r} needs a cut-off: {name}@10")
            return peer(name, family, None, family, changes, "ranx")
        if cut_family is None:
            raise PeerNameError(f"measure {name!r} takes no cut-off")
        return peer(name, cut_family, str(k), f"{cut_family}_{k}", changes, "ranx")

    return read


READERS = {
    "ndcg": _ranx("ndcg", "ndcg_cut", binary=False),
    "ndcg_burges": _ranx("ndcg_exp", "ndcg_exp_cut", binary=False),
    "map": _ranx("map", "map_cut"),
    "mrr": _ranx("recip_rank", "recip_rank_cut"),
    "precision": _ranx("set_P", "P"),
    "recall": _ranx("set_recall", "recall"),
    "hit_rate": _ranx(None, "success"),
    "hits": _ranx(None, "hits"),  # `hits` alone is irscore's family (trec_eval's syntax)
    "f1": _ranx("set_F", "F1"),
    "r-precision": _ranx("Rprec", None),
    "dcg": _ranx(None, "dcg_cut", binary=False),  # `dcg` alone is irscore's (trec_eval 10's)
    "dcg_burges": _ranx("dcg_exp", "dcg_exp_cut", binary=False),
}


def rbp(name: str, digits: str, level: int) -> PeerName:
    """ranx's `rbp.95` (or `rbp@95`): p = 0.95, the grade as gain (not scaled)."""
    p = float(f"0.{digits}")
    text = f"p={p!r}"
    return peer(name, "rbp_grade", text, f"rbp_grade_{text}", (*RANX, *rel(name, level)), "ranx")
