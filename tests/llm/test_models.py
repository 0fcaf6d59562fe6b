"""Choosing the judge model: provider specs, OpenAI-compatible servers, local, and errors."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from judgegraph.llm import models
from judgegraph.llm.models import ModelConfigError, resolve_model


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("OPENAI_BASE_URL", "JUDGEGRAPH_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_provider_spec_goes_through_init_chat_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    resolved = resolve_model("openai:gpt-4o-mini", timeout=7, max_retries=1)
    assert isinstance(resolved.model, ChatOpenAI)
    assert resolved.model.model_name == "gpt-4o-mini" and resolved.model.temperature == 0
    assert resolved.model.max_retries == 1
    assert resolved.model_id == "openai:gpt-4o-mini" and resolved.response_format == "json_schema"


def test_unknown_provider_is_a_one_line_config_error():
    with pytest.raises(ModelConfigError) as caught:
        resolve_model("nosuchprovider:model-x")
    assert "nosuchprovider:model-x" in str(caught.value) and "\n" not in str(caught.value)


def test_base_url_flag_makes_an_openai_compatible_client():
    resolved = resolve_model("my-model", base_url="http://127.0.0.1:8000/v1", response_format="json_object")
    assert isinstance(resolved.model, ChatOpenAI)
    assert resolved.model.openai_api_base == "http://127.0.0.1:8000/v1"
    assert resolved.model.model_name == "my-model"
    assert resolved.model.openai_api_key.get_secret_value() == "not-needed"
    assert resolved.response_format == "json_object"


def test_openai_base_url_environment_is_honoured(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "local-key")
    resolved = resolve_model()
    assert resolved.model.openai_api_base == "http://127.0.0.1:9999/v1"
    assert resolved.model.openai_api_key.get_secret_value() == "local-key"


@pytest.mark.parametrize(("spec", "environment"), [(None, {}), ("local", {"OPENAI_BASE_URL": "http://x/v1"})])
def test_nothing_configured_or_local_selects_the_embedded_judge(monkeypatch, spec, environment):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    chosen = []

    def fake_local(path, **kwargs):
        chosen.append(path)
        return models.ResolvedModel(ChatOpenAI(model="x", api_key="k"), "local:x", "json_object")

    monkeypatch.setattr("judgegraph.llm.local.local_judge", fake_local)
    resolved = resolve_model(spec)
    assert chosen == [None] and resolved.response_format == "json_object"


def test_local_model_path_selects_that_gguf(monkeypatch):
    chosen = []
    monkeypatch.setattr(
        "judgegraph.llm.local.local_judge",
        lambda path, **kwargs: chosen.append(path) or models.ResolvedModel(ChatOpenAI(model="x", api_key="k"), "local:p", "json_object"),
    )
    resolve_model(local_model_path="/models/other.gguf")
    assert chosen == ["/models/other.gguf"]
