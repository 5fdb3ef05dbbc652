"""``schema``: export the archive contract's JSON Schemas."""

from __future__ import annotations

import argparse
from pathlib import Path

from collector.archive.folder import check_archive_dir
from collector.archive.schema_export import export_schemas
from collector.commandline import Done, finish


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser("schema", help="export the record JSON Schemas into ARCHIVE/schema",
                            description=(
                                "Export the JSON Schema of every record kind into ARCHIVE/schema (a"
                                " test fails when they drift from the models)."
                            ))
    parser.add_argument("--archive", type=Path, default=Path("archive"),
                        help="archive folder, created if missing (default: archive)")
    parser.add_argument("--protocol", type=Path, default=None,
                        help="also write the endpoint protocol's JSON Schemas and OpenAPI document into this "
                             "folder (the repository keeps them in docs/protocol)")
    return parser


def run(args: argparse.Namespace) -> int:
    check_archive_dir(args.archive, may_be_missing=True)
    paths = export_schemas(args.archive / "schema")
    lines = [f"wrote {len(paths)} schema files to {args.archive / 'schema'}"]
    if args.protocol is not None:
        from collector.forecasters.endpoint_protocol import protocol_documents

        args.protocol.mkdir(parents=True, exist_ok=True)
        for name, data in protocol_documents().items():
            (args.protocol / name).write_bytes(data)
        lines.append(f"wrote the endpoint protocol's documents to {args.protocol}")
    return finish(Done(lines))
