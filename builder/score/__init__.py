"""Scoring stage: scores recomputed from the archive, slices, aggregates, calibration, market return, inference."""
