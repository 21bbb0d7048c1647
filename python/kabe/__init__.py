"""kabe: draughts endgame tables from Python, with the exact verdict under the draw rules.

Open a table directory built by ``kabe generate`` and probe positions, in the style of
python-chess's ``chess.syzygy``. ``TABLES`` below is such a directory (international
and Russian tables up to 4 pieces)::

    >>> import kabe
    >>> with kabe.open_tablebase(TABLES) as tb:
    ...     tb.probe_wld("W:W32:B27")          # 32x21 takes Black's last piece
    ...     tb.probe_dtw("W:W32:B27")          # (result, plies to the end)
    ...     tb.probe("W:WK46,K47,K48:BK5", "6.3=30").exact   # 6.3: 2 plies left
    1
    (1, 1)
    'draw'

Positions are FEN strings, :class:`Position` objects, or boards of other libraries with
a ``fen`` attribute (py-draughts) or a ``get_fen()`` method (pydraughts), read by duck
typing: kabe does not import them. Results are for the side to move.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Iterator, Optional, Sequence, Union

from . import _native
from ._native import (
    RULE_SETS,
    VARIANTS,
    Analysis,
    CounterError,
    Counters,
    MissingTableError,
    Move,
    MoveError,
    MoveVerdict,
    Position,
    PositionError,
    TableError,
    Tablebase,
    Verdict,
)

__version__: str = _native.__version__

__all__ = [
    "RULE_SETS",
    "VARIANTS",
    "Analysis",
    "CounterError",
    "Counters",
    "MissingTableError",
    "Move",
    "MoveError",
    "MoveVerdict",
    "Position",
    "PositionError",
    "TableError",
    "Tablebase",
    "Verdict",
    "analyze",
    "open_tablebase",
]

PathLike = Union[str, "os.PathLike[str]"]


def _none_where_missing(name: str, probe: Callable[..., Any]) -> Callable[..., Any]:
    """The ``get_*`` twin of a probe (python-chess's convention): the probe itself, but
    None where a table is missing instead of MissingTableError."""

    @functools.wraps(probe)
    def get(self: Tablebase, *args: Any, **kwargs: Any) -> Any:
        try:
            return probe(self, *args, **kwargs)
        except MissingTableError:
            return None

    get.__name__ = get.__qualname__ = name
    get.__doc__ = f"As {probe.__name__}, but None where a table is missing."
    return get


for _name, _probe in (
    ("get", Tablebase.probe),
    ("get_wld", Tablebase.probe_wld),
    ("get_dtw", Tablebase.probe_dtw),
    ("get_best_moves", Tablebase.best_moves),
):
    setattr(Tablebase, _name, _none_where_missing(_name, _probe))
del _name, _probe


def open_tablebase(
    path: PathLike,
    *,
    cache_bytes: int = 64 << 20,
    rules: Optional[Union[str, Sequence[str]]] = None,
    variants: Optional[Sequence[str]] = None,
) -> Tablebase:
    """Opens the tables under ``path`` (a folder per variant, as ``kabe generate`` writes).

    ``cache_bytes`` bounds the decompressed blocks kept in memory, shared by all
    threads. ``rules`` chooses the draw rules ``probe`` applies (``"fmjd"``,
    ``"fmjd-2000"``, ``"ussr1953"``, ``"none"``; default: each variant's usual set), and
    ``variants`` limits the variants opened. Use it as a context manager, or call
    ``close()``::

        >>> tb = kabe.open_tablebase(TABLES, cache_bytes=16 << 20, rules="ussr1953")
        >>> tb.rules("russian"), tb.rules("international")
        ('ussr1953', 'ussr1953')
        >>> tb.close()
        >>> kabe.open_tablebase("/no/such/dir")
        Traceback (most recent call last):
        ...
        kabe.TableError: /no/such/dir: cannot read the table directory: no such directory
    """
    if isinstance(rules, str):
        rules = [rules]
    return Tablebase(
        os.fspath(path),
        cache_bytes,
        list(rules) if rules is not None else None,
        list(variants) if variants is not None else None,
    )


def analyze(
    path: PathLike,
    tables: Union[Tablebase, PathLike],
    *,
    variant: Optional[str] = None,
    pieces: Optional[int] = None,
    rules: Optional[str] = None,
) -> Iterator[dict]:
    """The games of a PDN file, each the record ``kabe analyze --format json`` writes.

    Every position within the tables' reach carries its exact verdict under the game's
    draw rules (``exact``), the rule-free value (``theoretical``), the governing count
    (``rule``) and, for the move played, whether it threw a result away
    (``played.error``); the fields are documented in ``analyze/JSON.md``. ``tables`` is a
    :class:`Tablebase` or a directory (then opened with ``rules``)::

        >>> games = list(kabe.analyze(PDN, TABLES))
        >>> games[0]["status"], games[0]["positions"][0]["exact"]["result"]
        ('analysed', 'win')
    """
    if isinstance(tables, Tablebase):
        return iter(Analysis(tables, os.fspath(path), variant, pieces))
    return _analyze_with_own_tables(os.fspath(path), open_tablebase(tables, rules=rules), variant, pieces)


def _analyze_with_own_tables(path: str, tb: Tablebase, variant: Optional[str], pieces: Optional[int]) -> Iterator[dict]:
    with tb:
        yield from Analysis(tb, path, variant, pieces)
