"""Prematch builder: scores the archive and renders the static site."""

__version__ = "0.1.0"
