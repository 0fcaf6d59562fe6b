"""Structured output with repair: the one way every LLM step talks to the judge model.

Why not `with_structured_output`: with a pydantic class it raises inside the call when the
reply does not validate and the raw text is lost, and LangChain's JSON parsers close truncated
JSON silently. Here the schema goes to the server as `response_format` (so constrained decoders
enforce it), but the raw reply text is always validated by pydantic here, kept for the trace,
repaired locally if a meaning-preserving fix exists, and otherwise sent back to the model with
the validation errors, up to `max_repairs` times. A step that never validates comes back as a
failed `StepOutcome` with the reason; it never raises and never invents a value.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from ..prompts import neutralise_control_tokens, render_repair_request
from ..schemas.trace import Attempt
from ..schemas.untrusted_json import describe_surrogate
from .call_meter import count_attempt
from .json_repair import local_repair
from .judge_errors import call_failure_note
from .reply_fields import ReplyFields, printable, read_refusal, read_reply
from .reply_json import logprob_keys_mismatch, repeated_key
from .response_format import Dialect, fallback_dialect, response_format_for
from .steps import ModelCall, Step, drive

T = TypeVar("T", bound=BaseModel)

RAW_REPLY_KEEP = 2000
"""Characters of each raw reply kept in the trace: enough to see what went wrong."""

REPAIR_QUOTE_CHARS = 4000
"""Characters of an invalid reply quoted back to the model in a repair request. A valid reply
is far shorter; a longer one is cut (with a note), so a 10 MB reply costs one 10 MB download,
not a 10 MB request per repair."""

REPAIR_ERRORS = 20
"""Problems listed in a repair request (the rest are counted): a reply of 10,000 bad entries
gets a readable request, not 10,000 lines."""


@dataclass
class StepOutcome(Generic[T]):
    """The validated value of a step, or the reason it has none, plus every attempt made."""

    value: T | None
    attempts: list[Attempt] = field(default_factory=list)
    error: str | None = None
    token_logprobs: list[dict] | None = None
    """The validated reply's tokens with their top alternatives, when the step asked for them
    and the server returned them (OpenAI-compatible `logprobs`); see `llm.verdict_probabilities`."""

    @property
    def ok(self) -> bool:
        return self.value is not None

    @property
    def calls(self) -> int:
        return len(self.attempts)

    @property
    def input_tokens(self) -> int:
        return sum(a.input_tokens for a in self.attempts)

    @property
    def output_tokens(self) -> int:
        return sum(a.output_tokens for a in self.attempts)

    @property
    def errors(self) -> list[str]:
        return [e for a in self.attempts for e in a.errors]


def describe_validation_error(error: ValidationError) -> list[str]:
    """Validation errors in words a model can act on: where, and what was wrong."""
    messages = []
    for item in error.errors(include_url=False):
        location = ".".join(str(part) for part in item["loc"]) or "(whole reply)"
        messages.append(f"{location}: {item['msg']}")
    return messages


def _validate(
    schema: type[T], text: str, check: Callable[[T], list[str]] | None
) -> tuple[T | None, list[str]]:
    """Strict validation: a JSON `true` or `"5"` is not a number, `5.0` is not an integer (the
    schema sent to the server says which type it wants), and a repeated key is an error."""
    repeated = repeated_key(text)
    if repeated is not None:
        return None, [f"the reply repeats the key {printable(repeated)[:60]!r}: each key must appear once"]
    try:
        value = schema.model_validate_json(text, strict=True)
    except ValidationError as error:
        return None, describe_validation_error(error)
    problems = check(value) if check else []
    return (None, problems) if problems else (value, [])


def _ask(model: Any, messages: Sequence[BaseMessage], options: dict[str, Any]) -> Step[ReplyFields]:
    """Call the model once; a truncated reply is returned as such, never as an error. Every
    field read from the reply is checked as untrusted input (`llm.reply_fields`)."""
    try:
        message = yield ModelCall(model, messages, options)
    except Exception as error:  # noqa: BLE001 - classified just below, re-raised otherwise
        completion = getattr(error, "completion", None)
        if type(error).__name__ != "LengthFinishReasonError" or completion is None:
            raise
        # The OpenAI SDK refuses to return a `length`-truncated structured reply; keep its text.
        choice = completion.choices[0]
        usage = completion.usage
        return read_reply(choice.message.content or "", "length", getattr(usage, "prompt_tokens", None),
                          getattr(usage, "completion_tokens", None), None)
    usage = getattr(message, "usage_metadata", None) or {}
    metadata = getattr(message, "response_metadata", None) or {}
    if not isinstance(usage, dict) or not isinstance(metadata, dict):  # not LangChain's shapes
        usage, metadata = {}, {}
    content = message.text if isinstance(message, BaseMessage) else message
    finish_reason = metadata.get("finish_reason")
    fields = read_reply(content, finish_reason if finish_reason is not None else metadata.get("stop_reason"),
                        usage.get("input_tokens"), usage.get("output_tokens"), metadata.get("logprobs"))
    if isinstance(message, BaseMessage):
        additional = getattr(message, "additional_kwargs", None)
        read_refusal(additional.get("refusal") if isinstance(additional, dict) else None,
                     [*(getattr(message, "tool_calls", None) or []),
                      *(getattr(message, "invalid_tool_calls", None) or [])], fields)
    return fields


def _unsendable(messages: Sequence[BaseMessage]) -> str | None:
    """Why the prompt cannot be sent at all (text no request can encode), else None.

    Input validation rejects such items first; this keeps any other way in (a caller's own
    messages, a template variable) from being sent, failing in the client, and being counted
    and blamed as a model call."""
    for message in messages:
        content = message.content if isinstance(message.content, str) else str(message.content)
        problem = describe_surrogate(content, "the prompt")
        if problem:
            return problem
    return None


def structured_step(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: type[T],
    *,
    max_repairs: int = 2,
    dialect: Dialect = "json_schema",
    check: Callable[[T], list[str]] | None = None,
    top_logprobs: int = 0,
) -> Step[StepOutcome[T]]:
    """Ask `model` for a `schema` instance; validate, repair, re-prompt, or fail cleanly.

    `check` adds rules pydantic cannot know from the schema alone (a score inside a range
    given at run time, one verdict per claim); its complaints go through repair like any
    validation error. `top_logprobs > 0` asks OpenAI-compatible servers for the tokens'
    log-probabilities (graded verdicts); other chat models are called as usual.

    A generator (`llm.steps`): graph nodes `yield from` it, so one implementation serves the
    sync and the async graph; `run_structured_step` runs it on its own, blocking.
    """
    dialect = getattr(model, LEARNED_DIALECT, None) or dialect
    options = _call_options(model, schema, dialect, top_logprobs)
    conversation = list(messages)
    attempts: list[Attempt] = []
    unsendable = _unsendable(conversation)
    if unsendable:
        return StepOutcome(None, attempts, f"the request was not sent: {unsendable}")
    number, budget = 0, max_repairs + 1
    while number < budget:
        number += 1
        started = time.perf_counter()
        try:
            reply = yield from _ask(model, conversation, options)
        except Exception as error:  # noqa: BLE001 - any transport/runtime fault ends the step
            attempts.append(
                Attempt(number=number, ok=False, errors=[_describe_exception(error)],
                        seconds=time.perf_counter() - started)
            )
            count_attempt(attempts[-1])
            fallback = fallback_dialect(error, dialect)
            if fallback is not None:
                # The server rejected the request shape, not the reply: retry in its dialect,
                # and remember it for this model's later steps. Not counted as a repair.
                dialect = fallback
                _learn_dialect(model, fallback)
                options = _call_options(model, schema, dialect, top_logprobs)
                budget += 1
                continue
            return StepOutcome(None, attempts,
                               f"model call failed: {_describe_exception(error)}{call_failure_note(error)}")
        attempt = Attempt(
            number=number,
            ok=False,
            finish_reason=reply.finish_reason,
            raw_reply=reply.text[:RAW_REPLY_KEEP],
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            seconds=time.perf_counter() - started,
        )
        attempts.append(attempt)
        count_attempt(attempt)
        if reply.problems:
            attempt.errors = list(reply.problems)
        elif reply.finish_reason == "length":
            attempt.errors = ["reply was cut off (finish_reason=length); it must be shorter"]
        else:
            value, attempt.errors, attempt.repaired_locally = _checked_value(schema, reply.text, check)
            if value is not None:
                attempt.ok = True
                attempt.errors += reply.notes
                token_logprobs = reply.token_logprobs
                mismatch = logprob_keys_mismatch(value, token_logprobs) if token_logprobs else None
                if mismatch:
                    attempt.errors.append(f"logprobs ignored: {mismatch}")
                    token_logprobs = None
                return StepOutcome(value, attempts, None, token_logprobs)
        attempt.errors += reply.notes
        conversation += [
            AIMessage(content=_quoted(reply.text)),
            HumanMessage(content=render_repair_request(_listed(attempt.errors), _schema_text(schema))),
        ]
    last = "; ".join(attempts[-1].errors[:3])
    return StepOutcome(
        None,
        attempts,
        f"no valid reply after {len(attempts)} attempt(s) "
        f"({max_repairs} repair(s)); last problem: {last}",
    )


def _quoted(text: str) -> str:
    """The invalid reply as quoted back in a repair request: at most `REPAIR_QUOTE_CHARS`, and
    with chat-template control tokens neutralised (a reply may echo the answer's)."""
    if len(text) > REPAIR_QUOTE_CHARS:
        text = f"{text[:REPAIR_QUOTE_CHARS]}\n[... {len(text) - REPAIR_QUOTE_CHARS:,} more characters cut]"
    return neutralise_control_tokens(text)


def _listed(errors: list[str]) -> list[str]:
    """The problems a repair request lists: the first `REPAIR_ERRORS`, each one line of at most
    300 characters, and how many more there were."""
    listed = [error if len(error) <= 300 else error[:300] + " ..." for error in errors[:REPAIR_ERRORS]]
    if len(errors) > REPAIR_ERRORS:
        listed.append(f"(and {len(errors) - REPAIR_ERRORS} more problems of the same kind)")
    return listed


def _checked_value(schema: type[T], text: str,
                   check: Callable[[T], list[str]] | None) -> tuple[T | None, list[str], bool]:
    """The reply validated (or locally repaired and validated), its problems, and whether the
    value came from the local repair.

    A `check` or a validator that raises something other than a validation error (a rule
    meeting a value it did not expect) is that reply's problem too, never the item's crash."""
    try:
        value, errors = _validate(schema, text, check)
        if value is None:
            repaired = local_repair(text)
            if repaired is not None:
                repaired_value, _ = _validate(schema, repaired, check)
                if repaired_value is not None:
                    return repaired_value, errors, True
        return value, errors, False
    except (ValueError, TypeError, ArithmeticError, RecursionError, LookupError) as error:
        return None, [f"the reply could not be checked: {_describe_exception(error)}"], False


def run_structured_step(model: BaseChatModel, messages: Sequence[BaseMessage], schema: type[T],
                        **options: Any) -> StepOutcome[T]:
    """`structured_step` run to its end with blocking model calls (outside a graph)."""
    return drive(structured_step(model, messages, schema, **options))


LEARNED_DIALECT = "_judgegraph_learned_dialect"
"""The attribute a chat model holds the dialect its server was found to accept in, once it
rejected the one asked for: kept by the model itself, so it lives exactly as long as the model
and is never read for another model that happens to reuse a dead one's `id`."""


def _learn_dialect(model: BaseChatModel, dialect: Dialect) -> None:
    """Remember `dialect` for `model`'s later steps; a model that takes no new attribute is
    simply asked in the default dialect again (each step falls back as this one did)."""
    try:
        object.__setattr__(model, LEARNED_DIALECT, dialect)
    except (AttributeError, TypeError):
        pass


def _call_options(model: BaseChatModel, schema: type[BaseModel], dialect: Dialect,
                  top_logprobs: int = 0) -> dict[str, Any]:
    """The call's keyword arguments that ask for `schema` in `dialect` (and logprobs)."""
    kwargs: dict[str, Any] = {}
    response_format = response_format_for(schema, dialect)
    if response_format and _speaks_openai(model):
        # The same JSON body, sent as `extra_body`: given as the typed `response_format` param,
        # the OpenAI SDK walks the whole schema against its type hints on every call (a third of
        # the client's CPU over HTTP: docs/benchmarks.md) and takes its `parse` path.
        kwargs["extra_body"] = {**(getattr(model, "extra_body", None) or {}), "response_format": response_format}
    elif response_format:
        kwargs["response_format"] = response_format
    if top_logprobs > 0 and _speaks_openai(model):
        kwargs.update(logprobs=True, top_logprobs=top_logprobs)
    return kwargs


def _speaks_openai(model: Any) -> bool:
    """Only OpenAI-compatible chat models take `logprobs`; other providers would reject it."""
    return _openai_compatible_class(type(model))


@lru_cache(maxsize=64)
def _openai_compatible_class(cls: type) -> bool:
    return any(base.__name__ == "BaseChatOpenAI" for base in cls.__mro__)


@lru_cache(maxsize=256)
def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), separators=(",", ":"))


def _describe_exception(error: BaseException) -> str:
    """One line, safe to store and print: an exception's text may quote the reply it choked on."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return printable(f"{type(error).__name__}: {text[:300]}" if text else type(error).__name__)
