"""Page models of the methodology, audit and data pages (trusted markdown written by the project)."""

from __future__ import annotations

from collections.abc import Mapping

import markdown
from markupsafe import Markup

from builder.score.definitions import REGISTRY_ENTRIES, intervals_markdown
from builder.site.models import TextPage
from builder.site.models_board import DataPage, Download
from builder.site.release import is_open_data
from builder.site.render import TEMPLATES_DIR
from builder.site.sitectx import SiteContext
from builder.site.sitewriter import FileState

DATA_INTRO = """Every forecast, outcome and score, as **CSV** and **JSON**, and one **SQLite** database
holding the same tables (`forecasts`, `outcomes`, `scores`, `leaderboard`, `question_scores`).
Scores are recomputed from the archive at every build; `measures.json` says what every score
column is (its label, unit, direction, the paper and equation it implements, its basis: the
registry every page prints its labels from). `manifest.json` lists the SHA-256 of
every archive file and the commit this site was built from (see the [audit page](../audit/index.html))."""


def _markdown(text: str) -> Markup:
    """Trusted project markdown; code blocks can be scrolled with the keyboard (they are focusable)."""
    html = markdown.markdown(text, extensions=["fenced_code", "tables"], output_format="html")
    return Markup(html.replace("<pre>", '<pre tabindex="0">'))


def text_page(ctx: SiteContext, source: str, path: str, title: str, section: str) -> TextPage:
    body = project_markdown(source)
    if source == "audit.md":
        body = (fill_urls(body, ctx.urls).replace("<LATEST_ANCHOR>", latest_anchor_text(ctx))
                .replace("<TOKENS_HELD>", tokens_held_text(ctx)))
    return TextPage(path=path, meta=ctx.meta(title, path, section), body=_markdown(body))


def project_markdown(source: str) -> str:
    """A text page of ``site_templates/`` with the registry's parts filled in: the one source of the
    arena's page and of the documentation's copy (``docs/methodology.md``, through ``tools/mkdocs_hooks.py``)."""
    body = (TEMPLATES_DIR / source).read_text(encoding="utf-8")
    return body.replace(MEASURES_MARK, measures_table()).replace(INTERVALS_MARK, intervals_markdown())


MEASURES_MARK = "<!-- measures: made from builder/score/definitions.py at every build -->"
"""Where the methodology page lists every measure: the registry's table replaces the line."""
INTERVALS_MARK = "<!-- intervals: made from builder/score/definitions.py at every build -->"
"""Where the methodology page names the interval method: ``definitions.intervals_markdown`` replaces it."""


def measures_table() -> str:
    """The registry as the methodology page's markdown list: each label with its id, unit,
    direction and source, then what it is (a list reads at phone width, a 51-row table does not)."""
    lines = []
    for m in REGISTRY_ENTRIES:
        lines.append(f"* **{m.label}** (`{m.id}`; {m.unit}, {m.better}; {m.source}): {m.what}")
    return "\n".join(lines)


def latest_anchor_text(ctx: SiteContext) -> str:
    """The Audit page's latest anchor: the newest manifest's SHA-256 with the commit that added it (the
    archive's own history, so the page changes only when a manifest is added), and its token times."""
    view = ctx.anchor
    if view is None:
        return "No tick manifest yet."
    commit = ctx.added.get(view.manifest)
    anchor = f"{view.sha256}@{commit}" if commit else view.sha256
    stamped = ", ".join(f"{at} by {authority}" for authority, at in view.tokens) or "no time-stamp token yet"
    added = f", added in commit `{commit}`" if commit else ""
    return (f"The latest tick manifest, `{view.manifest}`, has SHA-256 `{view.sha256}`{added} ({stamped}). "
            f"Note it, and check any clone against it:\n\n```\n.venv/bin/prematch verify --repo . "
            f"--anchor {anchor}\n```")


def tokens_held_text(ctx: SiteContext) -> str:
    """What the Audit page says of this archive's time-stamp tokens: how many from which authority,
    or that it holds none (its times then rest on the git history alone)."""
    held = ctx.anchor.held if ctx.anchor is not None else ()
    if not held:
        return ("**This archive holds no time-stamp token**: its arena configures no authority, or has made no "
                "live tick yet (replays are never stamped), so its times rest on the git history alone (section 1).")
    counts = ", ".join(f"{count:,} from `{authority}`" for authority, count in held)
    total = sum(c for _, c in held)
    return f"This archive holds {total:,} time-stamp token{'' if total == 1 else 's'}: {counts}."


def fill_urls(body: str, urls) -> str:
    """The Audit page's addresses from ``[arena] repository_url`` / ``site_url`` (or a plain note without them)."""
    repository = urls.repository if urls is not None else None
    site = urls.site if urls is not None else None
    unset = "(not configured: [arena] {} in prematch.toml)"
    return (body.replace("<REPOSITORY_URL>", f"<{repository}>" if repository else unset.format("repository_url"))
            .replace("REPOSITORY_GIT", f"{repository}.git" if repository else "REPOSITORY_URL")
            .replace("<SITE_URL>", f"<{site}>" if site else "this site")
            .replace("SITE_BASE", site.rstrip("/") if site else "SITE_URL"))


def _size(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 1_048_576 else f"{n / 1024:.1f} KB"


def data_page(ctx: SiteContext, files: Mapping[str, FileState]) -> DataPage:
    """The downloads page; ``files``: each download's size and SHA-256 as the site writer took them
    (the open-data files among them listed apart, but for the per-match API documents)."""
    path = "data/index.html"
    downloads, schemas, open_data = [], [], []
    for name in sorted(files):
        size, sha = _size(files[name].size), files[name].sha256
        if is_open_data(name):
            if not (name.startswith("api/v1/matches/") and name.count("/") > 3):
                open_data.append(Download(name.removeprefix("data/") if name.startswith("data/") else f"../{name}",
                                          name, size, sha))
            continue
        rel = name.removeprefix("data/")
        (schemas if rel.startswith("schema/") else downloads).append(Download(rel, rel, size, sha))
    return DataPage(
        path=path, meta=ctx.meta("Data", path, "data"), downloads=tuple(downloads), schemas=tuple(schemas),
        records=len(ctx.archive.records), problems=tuple(str(p) for p in ctx.archive.problems),
        intro=_markdown(DATA_INTRO), open_data=tuple(open_data),
    )


def method_pages(ctx: SiteContext) -> list[TextPage]:
    return [
        text_page(ctx, "methodology.md", "methodology/index.html", "Methodology", "methodology"),
        text_page(ctx, "audit.md", "audit/index.html", "Audit", "audit"),
    ]
