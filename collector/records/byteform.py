"""The byte form of a record file, the archive's format: the contract's own, so the writer writes
and every reader (``verify``, the builder's downloads and schema files) checks the same bytes."""

from __future__ import annotations

import orjson
from pydantic import BaseModel

DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
"""orjson with sorted keys, two-space indent and a newline at the end."""


def record_bytes(record: BaseModel) -> bytes:
    """The stable byte form of a record: orjson, sorted keys, indented, newline at end."""
    return orjson.dumps(record.model_dump(mode="json"), option=DUMP_OPTIONS)
