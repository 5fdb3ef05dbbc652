"""What the three paper tables share: the table record and the bootstrap weights in columns.

:class:`PaperTable` is what :func:`builder.score.paper_tables.paper_tables` returns (title,
caption, columns, rows as printed); :class:`Columns` weights the Prophet Arena table's many
per-event lists by the resampler's replicates (:mod:`builder.score.paper_table_pa`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from builder.score.resampling import BLOCK, Resampler


@dataclass(frozen=True)
class PaperTable:
    key: str
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    measures: tuple[str, ...] = ()
    """Per column, the registry id of the measure it prints (``builder.score.definitions``), "" for others."""
    figures: tuple[str, ...] = ()
    """Per row, what its figures are figures of (``builder.score.definitions.figure_key``)."""


class Columns:
    """The resampler's weights, events by replicates, for weighting many event lists.

    ``weights[:, events] @ values`` is computed :data:`BLOCK` replicates at a time: the block's
    rows of the transposed copy (one memory copy per event) are gathered into one float64 buffer
    (events x BLOCK, never the whole events x replicates matrix: 240 MB at 3,000 events), and the
    transpose of the gathered block is the F-ordered slice of the whole gather (same values,
    same order), so BLAS computes each replicate's product alike: the same to the bit wherever
    BLAS gives a row the same result in any number of rows (single-threaded OpenBLAS does, and
    threaded OpenBLAS when each thread's share of a block's rows is a multiple of its kernel's
    unroll, as with BLOCK: see :mod:`builder.score.resampling`). A replicate's count of the
    events (the column sum of the gathered counts) is an integer, exact in floats far below
    2**53 whatever the order. The resampler's own weights can be dropped once this is made (the
    transposed copy replaces them); the copy keeps their small integer type. The counts are the
    weights only for a resampler whose scales are all 1 (LLM-SoccerArena's multinomial scheme,
    the paper tables'), which this checks."""

    def __init__(self, resampler: Resampler) -> None:
        if not resampler.unit:
            raise ValueError("paper columns weigh by the counts themselves: a resampler whose scales are all 1 "
                             "(the multinomial scheme) is needed")
        self.fingerprint = resampler.fingerprint  # the weights' (builder.score.memo)
        self.idx = resampler.index()
        self.transposed = np.ascontiguousarray(resampler.draws.T)
        self.buffer: np.ndarray | None = None  # float64 (events x BLOCK), made at the first call

    def means(self, per_event: dict, values: np.ndarray) -> np.ndarray:
        """Each replicate's weighted mean of ``values`` (ordered as ``per_event``'s events):
        ``(weights[:, events] @ values) / counts``, NaN where a replicate draws none of them."""
        return self.means_of([(per_event, values)])[0]

    def means_of(self, asked: list[tuple[dict, np.ndarray]]) -> list[np.ndarray]:
        """:meth:`means` of each (per_event, values): a block's counts of the same events are
        gathered once for every ask over them (each ask's product is still its own, the same)."""
        groups: dict[tuple, list[int]] = {}
        for i, (per_event, _) in enumerate(asked):
            groups.setdefault(tuple(per_event), []).append(i)
        if self.buffer is None:
            self.buffer = np.empty((len(self.transposed), BLOCK), dtype=float)
        replicates = self.transposed.shape[1]
        out: list[np.ndarray] = [np.empty(0)] * len(asked)
        for events, members in groups.items():
            rows = np.fromiter((self.idx[e] for e in events), dtype=np.intp, count=len(events))
            sums, counts = np.empty((len(members), replicates)), np.empty(replicates)
            for start in range(0, replicates, BLOCK):
                stop = min(start + BLOCK, replicates)
                gathered = self.buffer[: len(rows), : stop - start]
                if gathered.shape[1] < BLOCK:  # the last, shorter block: a contiguous buffer of its own width
                    gathered = np.empty((len(rows), stop - start))
                gathered[...] = self.transposed[rows, start:stop]  # these events' counts, as float64
                for k, i in enumerate(members):
                    sums[k, start:stop] = gathered.T @ asked[i][1]
                counts[start:stop] = gathered.sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                for k, i in enumerate(members):
                    out[i] = sums[k] / counts
        return out
