"""Jinja2 prompt templates, one `.j2` per LLM step, loaded from package data.

Each step template defines two blocks, `system` and `user`. User text (question, answer,
context, reference...) only ever enters as a template *variable* passed through the `data`
filter: Jinja2 never parses variable values, so `{{ 7*7 }}` in an answer reaches the model
literally, and the filter neutralises anything that looks like one of our section delimiters or
a chat template's control token, so an answer cannot close its `<answer>` section, or end the
user's turn, and pose as instructions.

Every step puts the shared material first and the part that varies last, so a local server's
prompt cache and a hosted API's prefix cache reuse the common prefix across the calls of one
item: a QA/RAG step opens with the item's data block (`item_data`, `_item_data.j2`), then its
own instruction and data; a coverage step with `_data_coverage.j2`, then its task and element.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources

import jinja2
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

SECTION_NAMES = (
    "question", "context", "passage", "document", "answer", "reference", "claim", "claims",
    "goal", "input", "output", "model_output", "expected_output", "actual_output", "element",
    "elements", "history", "tool_call", "config", "criteria", "data", "task", "system",
)

_OPEN, _CLOSE = "<〈⟨˂ᐸ❮⟪《", ">〉⟩˃ᐳ❯⟫》"
"""Angle brackets and their look-alikes, after NFKC (which already folds `＜` and `﹤` to `<`)."""

_SECTION_TAG = re.compile(
    rf"[{_OPEN}]\s*/?\s*(?:{'|'.join(SECTION_NAMES)})(?![\w-])(?P<rest>[^{_OPEN}{_CLOSE}\n]*[{_CLOSE}]?)"
)
"""A section tag or anything a reader could take for one: any bracket look-alike, any length
before the closing bracket, or no closing bracket at all."""

_CONTROL_TOKEN = re.compile(
    r"<\|[^|<>\s]{1,64}\|>"                        # ChatML, Llama 3, Phi-3, Qwen, DeepSeek (｜ folds to |)
    r"|\[/?(?:inst|system_prompt|tool_calls|available_tools|tool_results|tool_content|img|"
    r"control_\d+)\]"                              # Llama 2, Mistral
    r"|<</?sys>>"                                   # Llama 2
    r"|</?(?:s|bos|eos|pad|unk|start_of_turn|end_of_turn|start_of_image|end_of_image|"
    r"think|tool_call|tool_response)>"              # SentencePiece, Gemma, Qwen tool use and thinking
)
"""The chat-template control tokens of the judges judgegraph embeds or documents, matched in
the folded text (case-insensitively: a tokenizer may not fold, a reader does)."""

_INVISIBLE = frozenset(("Cf", "Cc", "Zl", "Zp"))
"""Format characters (zero-width space and joiners, bidi controls, the BOM, the soft hyphen) and
line controls are dropped before matching, so `</\u200banswer>` is seen as `</answer>`."""

_NEUTRAL = str.maketrans({**{c: "‹" for c in _OPEN}, **{c: "›" for c in _CLOSE}, "[": "⟦", "]": "⟧"})


_MAYBE_OPEN = re.compile(f"[{_OPEN}＜﹤\\[［]")
"""A character that is, or folds to, an opening bracket: text without one has nothing to neutralise."""

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _folded(value: str) -> tuple[str, list[int] | None]:
    """`value` as the matcher sees it (NFKC, case-folded, invisible characters dropped), and for
    each of its characters the index of the original character it came from (None: the same
    index, for plain ASCII text, the common case, folded without a loop)."""
    if value.isascii() and not _ASCII_CONTROL.search(value):
        return value.lower(), None
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(value):
        if char.isascii():
            if char in "\r\n\t" or " " <= char <= "~":
                chars.append(char.lower())
                origin.append(index)
            continue
        if unicodedata.category(char) in _INVISIBLE:
            continue
        for piece in unicodedata.normalize("NFKC", char).casefold():
            chars.append(piece)
            origin.append(index)
    return "".join(chars), origin


def neutralise(text: object) -> str:
    """User text made safe to place between section tags and inside a chat template.

    A look-alike of a section tag loses its brackets (`</answer>` -> `‹/answer›`), and so does a
    chat-template control token (`<|im_end|>` -> `‹|im_end|›`, `[INST]` -> `⟦INST⟧`): the
    judge reads them as text, and no tokenizer turns them into a turn of the conversation.
    Matching sees through case, NFKC look-alikes (full-width `＜/answer＞`) and invisible
    characters; only the brackets of what matched are replaced, the rest of the text is kept as
    it was. Text without such a sequence is returned unchanged.
    """
    return _neutralised("" if text is None else str(text), (_SECTION_TAG, _CONTROL_TOKEN))


def neutralise_control_tokens(text: str) -> str:
    """`text` with only its chat-template control tokens neutralised (`neutralise`), for a
    server that renders messages it did not write (`local_model.chat_guard`): the section tags
    of judgegraph's own prompts are kept."""
    return _neutralised(text, (_CONTROL_TOKEN,))


def _neutralised(value: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    if not _MAYBE_OPEN.search(value):
        return value
    folded, origin = _folded(value)
    marks: set[int] = set()
    for pattern in patterns:
        for match in pattern.finditer(folded):
            for position in range(match.start(), match.end()):
                if folded[position] in _OPEN or folded[position] in _CLOSE or folded[position] in "[]":
                    marks.add(position if origin is None else origin[position])
    if not marks:
        return value
    pieces = list(value)
    for index in marks:
        pieces[index] = unicodedata.normalize("NFKC", pieces[index]).translate(_NEUTRAL)
    return "".join(pieces)


_INCLUDE = re.compile(r'\{% include "(?P<name>_\w+\.j2)" %\}')
"""How a step template includes one of the package's partials (`_name.j2`)."""


def template_source(name: str) -> str:
    """A template's text as it is written in the package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _load(name: str) -> str:
    """A template's text with each partial it includes written in place, so rendering a step
    costs no template lookup and no new context per include (about a tenth of the graph's own
    CPU per item). The output is the include's, byte for byte: the partial loses the one
    trailing newline Jinja drops from a template's source, and `{% if true %}...{% endif %}`
    stands where the tag stood, so `trim_blocks` and `lstrip_blocks` treat the text around it as
    they treated the tag. The partials set no variables, so they share the includer's scope
    safely (`tests/prompts/test_inlined_partials.py` renders every template both ways)."""

    def partial(match: re.Match[str]) -> str:
        text = _load(match["name"])
        return "{% if true %}" + (text[:-1] if text.endswith("\n") else text) + "{% endif %}"

    return _INCLUDE.sub(partial, template_source(name))


def make_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """The prompts' Jinja2 settings over `loader`: a missing variable is an error, nothing is
    HTML-escaped (these are chat messages), and user text goes through the `data` filter. Also
    for templates kept outside the package that include the judge's partials."""
    env = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["data"] = neutralise
    return env


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The judge's own templates, from package data."""
    return make_environment(jinja2.FunctionLoader(_load))


def _render_block(template: jinja2.Template, block: str, context: jinja2.runtime.Context) -> str:
    return "".join(template.blocks[block](context)).strip()


def render_messages(step: str, **variables: object) -> list[BaseMessage]:
    """The system and user messages of `step` (the template `prompts/<step>.j2`)."""
    return template_messages(environment().get_template(f"{step}.j2"), **variables)


def template_messages(template: jinja2.Template, **variables: object) -> list[BaseMessage]:
    """The system and user messages of a step template (its `system` and `user` blocks), both
    rendered from one context: the templates set no variable at block level, so neither block
    can see what the other did, and a context per block cost a copy of the variables each."""
    context = template.new_context(dict(variables))
    return [
        SystemMessage(content=_render_block(template, "system", context)),
        HumanMessage(content=_render_block(template, "user", context)),
    ]


def render_repair_request(errors: list[str], schema_json: str) -> str:
    """The follow-up message that sends a reply's validation errors back to the model."""
    template = environment().get_template("repair.j2")
    return template.render(errors=errors, schema_json=schema_json).strip()
