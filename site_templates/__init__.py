"""The site's jinja2 templates, Markdown text pages and static assets, shipped as package data.

They live at the top of the repository so that a fork finds them at once, and install with
the ``builder`` (``pip install .``) so that a non-editable install builds the complete site.
"""

from pathlib import Path

TEMPLATES_DIR = Path(__file__).resolve().parent
