"""The Python API's arguments checked for their type before anything reads them: a wrong
type is a TypeError (a value out of range a ValueError) that names the argument,
never an AttributeError from deep inside. What the values mean is `arguments`' work.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

from irscore.engine.ranking.conventions import Convention


def _got(value: Any) -> str:
    """A value's type and the value, cut short: `int 5`."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:40] + '...'}"


def names(argument: str, value: Any, what: str = "name") -> None:
    """A name, or a list (tuple, set) of names; None stands for the default."""
    if value is None or isinstance(value, str):
        return
    if isinstance(value, list | tuple | set | frozenset):
        for item in value:
            if not isinstance(item, str):
                raise TypeError(f"{argument}: each {what} must be a string, got {_got(item)}")
        return
    raise TypeError(f"{argument}: expected a {what} or a list of {what}s, got {_got(value)}")


def conventions(argument: str, value: Any, several: bool = True) -> None:
    """A convention (a name, a `Convention`, a mapping of changed fields), or with
    `several` a list of them."""
    one = str | Convention | Mapping
    items = value if several and isinstance(value, list | tuple) else [value]
    for item in items:
        if not isinstance(item, one):
            raise TypeError(
                f"{argument}: expected a convention name, a Convention or a mapping of "
                f"changed fields{' (or a list of these)' if several else ''}, got {_got(item)}"
            )


def flag(argument: str, value: Any) -> None:
    """True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{argument}: expected True or False, got {_got(value)}")


def whole(argument: str, value: Any, least: int | None = None, none: bool = False) -> None:
    """An integer (not a bool), at least `least` when given; None allowed with `none`."""
    if value is None and none:
        return
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{argument}: expected an integer, got {_got(value)}")
    if least is not None and value < least:
        raise ValueError(f"{argument}: must be at least {least}, got {value}")


def share(argument: str, value: Any) -> None:
    """A number strictly between 0 and 1 (a significance level)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{argument}: expected a number between 0 and 1, got {_got(value)}")
    if not 0 < value < 1:
        raise ValueError(f"{argument}: must be between 0 and 1, got {value}")


def path(argument: str, value: Any, none: bool = False) -> None:
    """A file or folder path (a string or a path object); None allowed with `none`."""
    if value is None and none:
        return
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{argument}: expected a path, got {_got(value)}")


def text(argument: str, value: Any, none: bool = False) -> None:
    """A string; None allowed with `none`."""
    if not (isinstance(value, str) or (value is None and none)):
        raise TypeError(f"{argument}: expected a string, got {_got(value)}")


def runs(argument: str, value: Any) -> None:
    """Several runs: a mapping name -> run, or a list (tuple) of runs."""
    if not isinstance(value, Mapping | list | tuple):
        raise TypeError(
            f"{argument}: expected a mapping name -> run or a list of runs, got {_got(value)}"
        )


def mapping(argument: str, value: Any, none: bool = False) -> None:
    """A mapping; None allowed with `none`."""
    if not (isinstance(value, Mapping) or (value is None and none)):
        raise TypeError(f"{argument}: expected a mapping, got {_got(value)}")


def run(argument: str, value: Any, several: bool = False, none: bool = False) -> None:
    """A run (a path, a DataFrame, a dict), with `several` a list of runs too; None
    allowed with `none`. What a run holds is checked where it is read."""
    import pandas as pd

    kinds = (str, os.PathLike, pd.DataFrame, Mapping, *((list, tuple) if several else ()))
    if not (isinstance(value, kinds) or (value is None and none)):
        runs_too = ", or a list of runs" if several else ""
        raise TypeError(
            f"{argument}: expected a run (a path, a DataFrame or a dict){runs_too}, "
            f"got {_got(value)}"
        )
