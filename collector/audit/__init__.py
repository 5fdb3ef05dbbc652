"""Audit stage: git history, `verify`, the pull-request guard."""
