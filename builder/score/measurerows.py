"""A scored row's measures and layers as read-only mappings onto one row of the scoring's matrices.

Scoring computes every per-forecast measure as a column (``scoring.match_measures``); each row
then held them again as a dict of Python floats: about 600 bytes a row (the dict and its
distinct floats), kept for the whole build, and a dict of its four
layers. Instead every row's ``measures`` (and ``advancement``, ``layers``) is a :class:`Measures`
(:class:`Advancement`, :class:`Layers`): the matrix, shared by every row of one scoring
(rows x :data:`NAMES`, or :data:`ROW_LAYERS`; read-only, NaN where absent), and the row's
number, about 80 bytes. A value is made when read (``item``, ``tolist``): the Python
float ``float()`` gives of the entry, the one the dict held, so every reader gets the same numbers
to the last bit. The same matrix is the rows' ``builder.score.columns.RowTable.values``.

They behave as the dicts did wherever those were read: the same keys in the same order,
``[]``, ``get``, ``in``, ``len``, iteration, ``keys``/``values``/``items``, ``dict(m)``,
equality with a dict or another mapping of the kind (by keys and values), pickling (as their
values), ``copy.deepcopy`` (themselves: they are immutable). JSON writers get ``dict(m)``
(``builder.score.types.clean`` turns every mapping into a dict).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from builder.score.fine_grained_layers import LAYER_WEIGHTS
from builder.score.types import ADVANCEMENT_MEASURES, MEASURES

NAMES = MEASURES + ADVANCEMENT_MEASURES
"""The columns of a measures matrix, in this order."""
ROW_LAYERS = tuple(LAYER_WEIGHTS)[:4]
"""The layers scoring gives every row (``fine_grained_layers.match_layers``: T1-T4), in this order."""


class _MatrixRow(Mapping):
    """Row ``row`` of ``matrix``'s columns ``OFFSET`` .. ``OFFSET + len(KEYS)`` as a mapping of
    ``KEYS`` to Python floats (see the module docstring)."""

    __slots__ = ("matrix", "row")
    KEYS: tuple[str, ...] = ()
    OFFSET = 0
    WIDTH = 0
    """The matrix's columns (a one-row matrix of :meth:`of` has as many)."""
    _INDEX: dict[str, int] = {}

    def __init__(self, matrix: np.ndarray, row: int) -> None:
        self.matrix, self.row = matrix, row

    def __init_subclass__(cls) -> None:
        cls._INDEX = {name: cls.OFFSET + j for j, name in enumerate(cls.KEYS)}

    @classmethod
    def of(cls, values) -> _MatrixRow:
        """A mapping of ``values`` (in ``KEYS`` order) over a one-row matrix of its own."""
        matrix = np.full((1, cls.WIDTH), np.nan)
        matrix[0, cls.OFFSET : cls.OFFSET + len(cls.KEYS)] = list(values)
        matrix.flags.writeable = False
        return cls(matrix, 0)

    def values_list(self) -> list[float]:
        """Every value in ``KEYS`` order, as Python floats."""
        return self.matrix[self.row, self.OFFSET : self.OFFSET + len(self.KEYS)].tolist()

    def __getitem__(self, name: str) -> float:
        return self.matrix.item(self.row, self._INDEX[name])

    def get(self, name: str, default=None):
        j = self._INDEX.get(name)
        return default if j is None else self.matrix.item(self.row, j)

    def __contains__(self, name: object) -> bool:
        return name in self._INDEX

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def values(self) -> list[float]:
        return self.values_list()

    def items(self) -> list[tuple[str, float]]:
        return list(zip(self.KEYS, self.values_list()))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, _MatrixRow):
            return self.KEYS == other.KEYS and self.values_list() == other.values_list()
        if isinstance(other, dict):
            return dict(self.items()) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as the dict was

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self):
        return type(self).of, (self.values_list(),)

    def __deepcopy__(self, memo) -> _MatrixRow:
        return self


class Measures(_MatrixRow):
    """A row's :data:`~builder.score.types.MEASURES` (``ScoredForecast.measures``)."""

    __slots__ = ()
    KEYS = MEASURES
    OFFSET = 0
    WIDTH = len(NAMES)


class Advancement(_MatrixRow):
    """A knockout row's :data:`~builder.score.types.ADVANCEMENT_MEASURES` (``ScoredForecast.advancement``)."""

    __slots__ = ()
    KEYS = ADVANCEMENT_MEASURES
    OFFSET = len(MEASURES)
    WIDTH = len(NAMES)


class Layers(_MatrixRow):
    """A row's WorldCupArena layers T1-T4 (``ScoredForecast.layers``, NaN = unavailable) over the
    scoring's rows x :data:`ROW_LAYERS` matrix of layers."""

    __slots__ = ()
    KEYS = ROW_LAYERS
    OFFSET = 0
    WIDTH = len(ROW_LAYERS)


def shared_matrix(rows: list) -> np.ndarray | None:
    """The measures matrix of ``rows`` (rows x :data:`NAMES`: its row ``i`` is row ``i``'s) when
    every row's measures are a :class:`Measures` over one matrix and each row's advancement is
    that matrix's (or None exactly where its advancement entries are NaN); else None."""
    if not rows or not isinstance(rows[0].measures, Measures):
        return None
    matrix = rows[0].measures.matrix
    index = []
    for r in rows:
        m, adv = r.measures, r.advancement
        if type(m) is not Measures or m.matrix is not matrix:
            return None
        if adv is not None and (type(adv) is not Advancement or adv.matrix is not matrix or adv.row != m.row):
            return None
        index.append(m.row)
    index = np.array(index, dtype=np.intp)
    has = np.array([r.advancement is not None for r in rows], dtype=bool)
    if (has != ~np.isnan(matrix[index, len(MEASURES)])).any():
        return None
    return matrix if len(index) == len(matrix) and (index == np.arange(len(index))).all() else matrix[index]


def named_columns(rows: list, names: tuple[str, ...]) -> np.ndarray | None:
    """rows x ``names``: each row's value of each named measure (advancement measures included),
    NaN where absent (an advancement measure of a row without ``advancement``, a name of
    neither kind), the floats reading each row's mappings gives; None when the rows' measures do
    not share one matrix (:func:`shared_matrix`)."""
    matrix = shared_matrix(rows)
    if matrix is None:
        return None
    at = {name: j for j, name in enumerate(NAMES)}
    out = np.full((len(rows), len(names)), np.nan)
    known = [k for k, name in enumerate(names) if name in at]
    out[:, known] = matrix[:, [at[names[k]] for k in known]]
    later = [k for k in known if at[names[k]] >= len(MEASURES)]
    if later:
        absent = np.fromiter((r.advancement is None for r in rows), dtype=bool, count=len(rows))
        out[np.ix_(absent, later)] = np.nan
    return out


def rows_of(matrix: np.ndarray) -> list[Measures]:
    """One :class:`Measures` per row of ``matrix`` (made read-only: every row reads it)."""
    matrix.flags.writeable = False
    return [Measures(matrix, i) for i in range(len(matrix))]


def shared_layers(found: list) -> np.ndarray | None:
    """The layers matrix whose rows ``found`` (rows' ``layers``) are, in order, when each is a
    :class:`Layers` over one matrix; else None."""
    if not found or type(found[0]) is not Layers:
        return None
    matrix = found[0].matrix
    if not all(type(x) is Layers and x.matrix is matrix for x in found):
        return None
    index = np.fromiter((x.row for x in found), dtype=np.intp, count=len(found))
    return matrix if len(index) == len(matrix) and (index == np.arange(len(index))).all() else matrix[index]
