"""The one jinja2 environment of the site: autoescape on, StrictUndefined, templates in site_templates/,
every string shown without control and bidi characters (:func:`shown`).

The templates are package data of the top-level ``site_templates`` package, so an installed
(not editable) Prematch finds them wherever it runs.

Every template has exactly one declared page model (a frozen dataclass whose ``TEMPLATE``
names it); :func:`render_page` refuses a model of another type, so a template can only
use the fields its model declares.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar, Protocol

import orjson
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from builder.score.definitions import label
from builder.site.rationale import clean_text
from collector.records import is_demo
from site_templates import TEMPLATES_DIR


class PageModel(Protocol):
    TEMPLATE: ClassVar[str]
    path: str


def json_for_script(value: Any) -> Markup:
    """JSON safe inside a <script type="application/json"> element (no '<', '>' or '&'), without the
    bidi and control characters no label may carry (JSON escapes the C0 controls itself)."""
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY).decode()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(clean_text(text))


def shown(value: Any) -> Any:
    """Every ``{{ expression }}`` of every template, before it is escaped: a string from any source (a team
    or venue name, a model id, a note) loses its control and bidi characters (:func:`clean_text`);
    markup is already made safe where it is made (rendered rationales, trusted text)."""
    return clean_text(value) if isinstance(value, str) and not isinstance(value, Markup) else value


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=shown,
    )
    env.filters["json_script"] = json_for_script
    env.globals["measure_label"] = label  # a template names a measure only by its registry label
    env.tests["demo"] = is_demo  # {% if f.forecaster is demo %}: the demo's synthetic LLMs get a badge
    return env


def render_page(model: PageModel) -> bytes:
    """Render ``model`` with its declared template; the model must be that template's type."""
    template_name = type(model).TEMPLATE
    declared = PAGE_MODELS.get(template_name)
    if declared is not type(model):
        raise TypeError(f"template {template_name} is declared for {declared}, not {type(model).__name__}")
    html = environment().get_template(template_name).render(page=model)
    return html.encode("utf-8")


PAGE_MODELS: dict[str, type] = {}


def declare(model: type) -> type:
    """Class decorator: register ``model`` as the one page model of ``model.TEMPLATE``."""
    name = model.TEMPLATE
    if name in PAGE_MODELS and PAGE_MODELS[name] is not model:
        raise TypeError(f"template {name} already has a page model: {PAGE_MODELS[name].__name__}")
    PAGE_MODELS[name] = model
    return model
