"""One module per ``python -m collector`` command."""
