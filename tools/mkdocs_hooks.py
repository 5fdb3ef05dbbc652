"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

``docs/methodology.md`` holds one line, :data:`METHOD_MARK`; it is replaced by the arena's own
Method page (``site_templates/methodology.md`` with the measure registry's list and the interval
method filled in, :func:`builder.site.textpages.project_markdown`), so the documentation and every
arena's site print one text.
"""

from __future__ import annotations

METHOD_MARK = "<!-- the arena's Method page: site_templates/methodology.md, filled in at every build -->"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if METHOD_MARK not in markdown:
        return markdown
    from builder.site.textpages import project_markdown

    return markdown.replace(METHOD_MARK, project_markdown("methodology.md"))
