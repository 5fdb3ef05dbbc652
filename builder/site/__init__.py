"""The static site: page models built from the archive and its scores, rendered by jinja2."""
