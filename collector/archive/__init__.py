"""The archive on disk: path layout, the one record-file rule, reader, append-only writer, revisions, tick manifests, JSON Schema export."""
