"""One module per ``python -m builder`` command."""
