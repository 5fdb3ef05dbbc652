"""Export the contract's JSON Schemas (into ``archive/schema/`` and the published site)."""

from __future__ import annotations

from pathlib import Path

import orjson

from collector.records import RECORD_ADAPTER, RECORD_MODELS
from collector.records.byteform import DUMP_OPTIONS


def schema_documents() -> dict[str, bytes]:
    """File name -> stable bytes of each record kind's JSON Schema, plus the union."""
    docs = {f"{kind}.schema.json": model.model_json_schema() for kind, model in RECORD_MODELS.items()}
    docs["record.schema.json"] = RECORD_ADAPTER.json_schema()
    return {name: orjson.dumps(doc, option=DUMP_OPTIONS) for name, doc in sorted(docs.items())}


def export_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder`` (replacing older exports: schemas are code, not records)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in schema_documents().items():
        target = folder / name
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        written.append(target)
    return written
