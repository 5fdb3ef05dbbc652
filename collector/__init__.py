"""Prematch collector: registers fixtures, collects forecasts, records outcomes into archive/."""

__version__ = "0.1.0"
