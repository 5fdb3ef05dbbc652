"""The dataset release: the download tables as Parquet, with a schema document and a dataset card.

The tables are the very rows of the CSV, JSON and SQLite downloads (:func:`builder.site.tables.iter_tables`:
the forecasts, the outcomes, the per-forecast scores the leaderboard averages, the leaderboard and
the question scores), so the numbers are the site's, computed once by the build's scoring. Each
column gets an Arrow type from its SQLite type, and the time columns (ISO 8601 UTC text in the
CSV) become ``timestamp[us, UTC]``: ``pandas.read_parquet``, ``polars.read_parquet`` and DuckDB's
``read_parquet`` load them without conversion. Written a chunk of rows at a time.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from builder.site.tables import Table

PARQUET_DIR = "data/parquet"
SCHEMA_DOC = f"{PARQUET_DIR}/schema.json"
CARD = f"{PARQUET_DIR}/README.md"
CHUNK_ROWS = 5000
_TYPES = {"TEXT": pa.string(), "INTEGER": pa.int64(), "REAL": pa.float64()}
_TIME = pa.timestamp("us", tz="UTC")
TIME_COLUMNS = frozenset({"kickoff_utc", "scheduled_at", "requested_at"})


def _arrow_type(name: str, declared: str, values: list) -> pa.DataType:
    """A column's type: time columns as UTC timestamps, else the Python type of its values (a bool
    is a bool, an int an int64 unless a float is among them), else the declared SQLite type."""
    if name in TIME_COLUMNS:
        return _TIME
    kinds = {type(_plain(v)) for v in values if v is not None}
    if kinds == {bool}:
        return pa.bool_()
    if kinds and kinds <= {int, bool}:
        return pa.int64()
    if kinds and kinds <= {int, float}:
        return pa.float64()
    if kinds:
        return pa.string()
    return _TYPES.get(declared, pa.string())


def arrow_schema(table: Table) -> pa.Schema:
    """The table's Arrow schema, typed from its first chunk of rows (and its declared SQLite types)."""
    first = table.rows[:CHUNK_ROWS]
    fields = [pa.field(name, _arrow_type(name, declared, [row[i] for row in first]))
              for i, (name, declared) in enumerate(table.columns)]
    return pa.schema(fields, metadata={"description": table.description})


def _plain(value):
    """A numpy scalar as the Python number it holds; anything else as it is."""
    return value.item() if not isinstance(value, str | int | float) and hasattr(value, "item") else value


def _value(value, arrow: pa.DataType):
    value = _plain(value)
    if value is None:
        return None
    if arrow == _TIME:
        return datetime.fromisoformat(value) if isinstance(value, str) else value
    if arrow == pa.float64():
        return float(value) if value == value else None  # NaN: unknown
    if arrow == pa.string() and not isinstance(value, str):
        return str(value)
    return value


def _column(values: Sequence, arrow: pa.DataType) -> pa.Array:
    """One column of a batch: Arrow converts the whole list at once (time strings parsed by its
    ISO 8601 cast, NaN as null), and what it refuses goes value by value (:func:`_value`): the
    same array either way, the per-value route only slower."""
    try:
        if arrow == _TIME:
            if all(isinstance(v, str) or v is None for v in values):
                return pc.cast(pa.array(values, pa.string()), _TIME)
        else:
            return pa.array(values, type=arrow, from_pandas=arrow == pa.float64())
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError, OverflowError):
        pass
    return pa.array([_value(v, arrow) for v in values], type=arrow)


def _batches(table: Table, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    types = [f.type for f in schema]
    for start in range(0, len(table.rows), CHUNK_ROWS):
        columns = zip(*table.rows[start:start + CHUNK_ROWS], strict=True)
        yield pa.RecordBatch.from_arrays([_column(c, t) for c, t in zip(columns, types, strict=True)], schema=schema)


def parquet_bytes(table: Table) -> tuple[bytes, pa.Schema]:
    """One table as Parquet (zstd), and its Arrow schema."""
    schema = arrow_schema(table)
    sink = io.BytesIO()
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        wrote = False
        for batch in _batches(table, schema):
            writer.write_batch(batch)
            wrote = True
        if not wrote:
            writer.write_table(schema.empty_table())
    return sink.getvalue(), schema


class Release:
    """The Parquet tables, their schema document and the card, made as the tables pass by: the
    downloads' one walk over the tables (:meth:`passing`) feeds both their writers."""

    def __init__(self, commit: str) -> None:
        self.commit = commit
        self.parquet: dict[str, bytes] = {}
        self.documented: list[dict] = []

    def add(self, table: Table) -> None:
        """One table as Parquet, with its entry in the schema document."""
        data, schema = parquet_bytes(table)
        self.parquet[f"{PARQUET_DIR}/{table.name}.parquet"] = data
        self.documented.append({"table": table.name, "file": f"{table.name}.parquet", "rows": len(table.rows),
                                "description": table.description,
                                "columns": [{"name": f.name, "type": str(f.type), "nullable": f.nullable}
                                            for f in schema]})

    def passing(self, tables: Iterable[Table]) -> Iterator[Table]:
        """Each of ``tables``, once it is added here (for a writer that holds one table at a time)."""
        for table in tables:
            self.add(table)
            yield table

    def files(self) -> dict[str, bytes]:
        """Every Parquet table, the schema document (each table's columns, types and meaning) and the card."""
        schema_doc = orjson.dumps({"dataset": "prematch", "commit": self.commit, "tables": self.documented},
                                  option=orjson.OPT_INDENT_2)
        return self.parquet | {SCHEMA_DOC: schema_doc, CARD: card(self.documented, self.commit).encode()}


def card(documented: list[dict], commit: str) -> str:
    """The dataset card shipped beside the files (the long form is docs/dataset.md)."""
    lines = ["# Prematch dataset", "",
             f"Built from the archive at commit `{commit}`. Licence: MIT (the repository's LICENSE); "
             "cite the repository and this commit.", "",
             "Every forecast was asked before kickoff by the arena's scheduler and committed in a hash-chained, "
             "time-stamped tick manifest; records with `clock = replay` come from a replay on a simulated clock "
             "and are no prospective result.", "", "| file | rows | what |", "|---|---|---|"]
    lines += [f"| {d['file']} | {d['rows']} | {d['description']} |" for d in documented]
    lines += ["", "Columns and types: `schema.json`. Load with `pandas.read_parquet`, `polars.read_parquet` or "
              "DuckDB's `read_parquet('forecasts.parquet')`.", ""]
    return "\n".join(lines)
