"""The report's HTML: a Jinja2 template with autoescape on, CSS and script inlined.

Why these choices: autoescape makes every user string (questions, answers, contexts, claims,
ids) text, never markup; the script is our own file, inlined and allowed by its sha256 in the
page's Content-Security-Policy, so even markup that slipped through could not run a script.
Escaping `<>&` does nothing against bidi overrides (U+202E reverses what follows it on the
page) or control characters, so every value printed goes through `text.visible` first (the
environment's `finalize`), which writes them out as `\u202e`; line breaks and tabs stay.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import resources

import jinja2

from ..text.visible import visible
from .build import Report


def static_file(name: str) -> str:
    return resources.files("judgegraph.report").joinpath("static", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("judgegraph.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["num"] = lambda v, digits=2: "" if v is None else (f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}")
    return env


def _shown(value: object) -> object:
    """Every `{{ value }}`: user strings with control and bidi characters written out; our own
    markup (`Markup`: the inlined CSS and script) as it is."""
    if isinstance(value, str) and not isinstance(value, jinja2.utils.markupsafe.Markup):
        return visible(value, keep="\n\t")
    return value


def render_html(report: Report) -> str:
    script = static_file("report.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    template = environment().get_template("report.html.j2")
    return template.render(
        report=report, css=jinja2.utils.markupsafe.Markup(static_file("report.css")),
        script=jinja2.utils.markupsafe.Markup(script), script_hash=f"sha256-{digest}",
    )
