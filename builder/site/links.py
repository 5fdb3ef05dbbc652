"""Where each page lives in the built site; every internal link is relative to the page."""

from __future__ import annotations

from datetime import datetime

from builder.site.models import Kickoff


def root_for(path: str) -> str:
    """Relative prefix from the page at ``path`` back to the site root."""
    return "../" * path.count("/")


def match_path(competition_id: str, event_id: str) -> str:
    return f"matches/{competition_id}/{event_id}.html"


def match_list_path(competition_id: str) -> str:
    return f"matches/{competition_id}/index.html"


def forecaster_path(forecaster: str) -> str:
    return f"forecasters/{forecaster}.html"


def bracket_path(competition_id: str) -> str:
    return f"bracket/{competition_id}.html"


def bracket_overlay_path(competition_id: str, key: str) -> str:
    """One full-tournament forecast's overlay of the bracket page (JSON, fetched on selection)."""
    return f"bracket/{competition_id}/{key}.json"


def kickoff(moment: datetime | None, source: str) -> Kickoff:
    if moment is None:
        return Kickoff(iso_utc=None, utc_label=f"{source} (time to be announced)", source=source)
    return Kickoff(
        iso_utc=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        utc_label=moment.strftime("%Y-%m-%d %H:%M UTC"),
        source=source,
    )
