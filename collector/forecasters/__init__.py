"""Forecasters stage: task types, the configured roster, the LLM forecaster and the built-in baselines."""
