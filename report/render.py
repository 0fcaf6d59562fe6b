"""The report's HTML: a Jinja2 template with autoescape on, CSS and script inlined.

Why these choices: autoescape makes every user string (questions, answers, contexts, claims,
ids) text, never markup; the script is our own file, inlined and allowed by its sha256 in the
page's Content-Security-Policy, so even markup that slipped through could not run a script.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import resources

import jinja2

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
    )
    env.filters["num"] = lambda v, digits=2: "" if v is None else (f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}")
    return env


def render_html(report: Report) -> str:
    script = static_file("report.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    template = environment().get_template("report.html.j2")
    return template.render(
        report=report, css=jinja2.utils.markupsafe.Markup(static_file("report.css")),
        script=jinja2.utils.markupsafe.Markup(script), script_hash=f"sha256-{digest}",
    )
