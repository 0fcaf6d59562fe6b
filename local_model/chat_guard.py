"""Message contents reach the embedded judge as text, never as chat-template control tokens.

Why: llama-cpp-python's server renders a chat request through the model's template and then
tokenizes the whole prompt with special tokens on (it must: the template's own `<|im_start|>`
markers are special tokens). So any `<|im_end|>` written inside a message's content becomes a
real end of turn, and an answer being judged could forge the judge's own reply. judgegraph's
prompts neutralise such text before sending (`prompts.neutralise`); this guard does the same
on the server, for every client of the embedded server (`judgegraph serve-local` serves other
apps too): `Llama.create_chat_completion` gets every message's content with its control tokens
neutralised (`prompts.neutralise_control_tokens`), and the template's own markers, added around
the contents, stay special.

It is installed only inside judgegraph's own server child process (`local_model.server`).
"""

from __future__ import annotations

import functools
from typing import Any

from ..prompts import neutralise_control_tokens


def guarded_message(message: Any) -> Any:
    """A chat message whose text content (a string, or the text parts of a list) is neutralised."""
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": neutralise_control_tokens(content)}
    if isinstance(content, list):
        parts = [{**part, "text": neutralise_control_tokens(part["text"])}
                 if isinstance(part, dict) and isinstance(part.get("text"), str) else part for part in content]
        return {**message, "content": parts}
    return message


def install() -> None:
    """Wrap `llama_cpp.Llama.create_chat_completion` (see the module docstring); idempotent."""
    import llama_cpp

    original = llama_cpp.Llama.create_chat_completion
    if getattr(original, "judgegraph_guarded", False):
        return

    @functools.wraps(original)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        if "messages" in kwargs:
            kwargs["messages"] = [guarded_message(m) for m in kwargs["messages"]]
        elif args:
            args = ([guarded_message(m) for m in args[0]], *args[1:])
        return original(self, *args, **kwargs)

    guarded.judgegraph_guarded = True  # type: ignore[attr-defined]
    llama_cpp.Llama.create_chat_completion = guarded  # type: ignore[method-assign]
