"""Number formatting shared by the page models (a dash for missing values, never "-0.000" or "-0%")."""

from __future__ import annotations


def number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def percent(value: float | None) -> str:
    if value is None:
        return "–"
    text = f"{100 * value:.0f}%"
    return text[1:] if text.startswith("-") and not text.strip("-0%") else text  # never "-0%"
