"""The archive's write side: the one writer of record files, the tick manifest, revisions, the lock owner.

Only the collector's commands write the archive; the builder reads it (``collector.archive``'s
reader, layout and facts modules) and never imports this package (an import-linter contract
in ``pyproject.toml``, checked by ``tests/test_layering.py``).
"""
