"""The labelling page's HTML: one item, rendered by a Jinja2 template with autoescape on.

Why the report's choices: the question, context, answer, claims and ids are user text, so the
template escapes every one of them (a `<script>` in an answer shows as text), every value
printed goes through `text.visible` (bidi overrides and control characters written out), and
the one script is our own file, inlined and allowed by its sha256 in the Content-Security-Policy
the server sends with the page (the stylesheet likewise), so even markup that slipped through
could not run. The item's parts (fields, claims with their verdicts, context with the evidence
marked, the judge's scores) come from the report's own view of a record (`report.build.item_view`).

Blind by default: the page of the item to label holds its question, answer, context and
reference only (`blind_view.blind`), not the judge's claims, verdicts, evidence, scores or the stratum
(named after the judge's score). A person who sees "contradicted" or 0.82 first tends to agree
with it, and label-corrected estimates assume the labels' errors are independent of the
judge's. What the judge said appears once the label is saved, on the next page (`Revealed`),
where it helps to learn where the judge errs. `label --show-judge` puts it on the item's own
page instead (the scores still hidden until every metric has a label), and each such label
records `judge_shown`.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from urllib.parse import quote, unquote

import jinja2

from ..report.build import ItemView
from ..text.visible import visible
from .scales import LabelScale
from .session import MAX_NOTE_CHARS


@dataclass(frozen=True)
class Revealed:
    """The item just labelled, with the judge's side of it, shown once its label is saved."""

    position: int
    item: ItemView
    human: dict[str, int]
    """The label given, by metric."""


@dataclass(frozen=True)
class PageView:
    token: str
    labels_file: str
    n_items: int
    labelled: int
    skipped: int
    scales: list[LabelScale]
    position: int | None = None
    """None when every item has a label or a skip."""
    item: ItemView | None = None
    stratum: str | None = None
    message: str | None = None
    show_judge: bool = False
    """The judge's verdicts, evidence and scores are on the item's page (`label --show-judge`)."""
    revealed: Revealed | None = None
    precision: str | None = None
    """`--target-width`: the interval so far and the labels needed (`Session.precision`); it
    holds no verdict of the judge on the item at hand, so a blind page shows it too."""


@dataclass(frozen=True)
class Assets:
    css: str
    script: str

    @staticmethod
    def digest(text: str) -> str:
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")

    @property
    def policy(self) -> str:
        """The page's Content-Security-Policy: nothing but our own inlined style and script,
        forms posting to this server only, no framing."""
        return (f"default-src 'none'; style-src '{self.digest(self.css)}'; script-src '{self.digest(self.script)}'; "
                "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


@lru_cache(maxsize=1)
def assets() -> Assets:
    static = resources.files("judgegraph.labelling").joinpath("static")
    return Assets(css=static.joinpath("label.css").read_text(encoding="utf-8"),
                  script=static.joinpath("label.js").read_text(encoding="utf-8"))


def _shown(value: object) -> object:
    if isinstance(value, str) and not isinstance(value, jinja2.utils.markupsafe.Markup):
        return visible(value, keep="\n\t")
    return value


def form_id(item_id: str) -> str:
    """The id as the page's forms send it: percent-encoded, so that the written-out escapes of
    `_shown` (`\\u202e` for U+202E) never reach it and the server reads back the id itself."""
    return quote(item_id, safe="", errors="surrogatepass")


def posted_id(value: str) -> str:
    """The id a form sent (`form_id`'s inverse)."""
    return unquote(value, errors="surrogatepass")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("judgegraph.labelling", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["form_id"] = form_id
    env.filters["num"] = lambda v, digits=2: "" if v is None else (f"{v:.{digits}f}" if isinstance(v, float) else f"{v}")
    return env


def render_page(view: PageView) -> str:
    files = assets()
    markup = jinja2.utils.markupsafe.Markup
    return environment().get_template("label.html.j2").render(
        view=view, css=markup(files.css), script=markup(files.script), max_note=MAX_NOTE_CHARS)
