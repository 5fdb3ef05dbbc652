"""Audit stage: git history, `verify` (with RFC 3161 tokens, attestations and anchors), the time-stamping client, the pull-request guard."""
