"""One module per ``prematch`` command."""
