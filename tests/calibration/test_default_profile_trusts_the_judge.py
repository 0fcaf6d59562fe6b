"""The default profile takes a judge's verdicts as it gives them (issue #53), through the CLI.

A judge we have not fitted (any `--model` over `--base-url`) that answers "supported" on a
faithful rewording must score it as supported in every language, with and without token
log-probabilities, and the explanation must name the same count as the score; a rule of code
that lowers a claim names itself, by how much and why. On 3a4d731 the default profile scaled
the verdict by word overlap: "Construction of the Eiffel Tower finished in 1889." scored 0.33
with the explanation "0 of 1 claims are supported" although the judge said supported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgegraph.commands import cli
from tests.support import fakes
from tests.support.fault_server import RawReply
from tests.support.scripted_server import ScriptedEndpoint

# (language, question, context, a faithful rewording, a hallucinated answer, the judge's own answer)
PROBES = [
    ("en", "When was the Eiffel Tower completed?", "The Eiffel Tower was completed in 1889. It is 330 m tall.",
     "Construction of the Eiffel Tower finished in 1889.", "The Eiffel Tower was designed by Leonardo da Vinci.", "1889"),
    ("de", "Wer hat die Relativitätstheorie entwickelt?",
     "Albert Einstein entwickelte die Relativitätstheorie zu Beginn des 20. Jahrhunderts.",
     "Die Relativitätstheorie stammt von Albert Einstein.", "Isaac Newton schuf die Relativitätstheorie in Cambridge.",
     "Albert Einstein"),
    ("es", "¿Dónde nació Frida Kahlo?", "Frida Kahlo vino al mundo en Coyoacán, Ciudad de México, en 1907.",
     "Frida Kahlo nació en Coyoacán.", "Frida Kahlo nació en Buenos Aires, Argentina.", "Coyoacán"),
    ("ko", "세종대왕은 무엇을 만들었나요?", "세종대왕은 1443년에 훈민정음을 창제하였다.",
     "세종대왕이 한글의 옛 이름인 훈민정음을 만들었습니다.", "세종대왕은 거북선을 발명했습니다.", "훈민정음"),
    ("ar", "ما هي عاصمة مصر؟", "القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها.",
     "تعد القاهرة العاصمة المصرية.", "عاصمة مصر هي الإسكندرية منذ عام 1950.", "القاهرة"),
]
IDS = [probe[0] for probe in PROBES]


def graded(reply: dict, field: str, probabilities: dict[str, float]) -> RawReply:
    """`reply` over HTTP with OpenAI-format token log-probabilities on `field`'s value."""
    return RawReply(content=json.dumps(reply),
                    logprobs={"content": fakes.logprobs_content(reply, field, probabilities)})


def verdict_reply(label: str, logprobs: bool):
    if not logprobs:
        return fakes.verdict(label, 1)
    others = [other for other in fakes.VERDICT_LABELS if other != label]
    return graded(fakes.verdict(label, 1), "verdict", {label: 0.97, others[0]: 0.02, others[1]: 0.01})


def judged(tmp_path: Path, capsys, probe, answer: str, label: str, logprobs: bool) -> dict:
    _, question, context, _, _, own_answer = probe
    judge = fakes.judge(extract_claims=fakes.claims(answer), check_claim=verdict_reply(label, logprobs),
                        answer_from_context={"answer": own_answer})
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": question, "answer": answer, "context": [context],
                                "metrics": ["faithfulness"]}, ensure_ascii=False), encoding="utf-8")
    with ScriptedEndpoint(judge) as endpoint:
        code = cli.main(["evaluate", str(item), "--no-embeddings", *endpoint.flags])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


@pytest.mark.parametrize("logprobs", [False, True], ids=["no-logprobs", "logprobs"])
@pytest.mark.parametrize("probe", PROBES, ids=IDS)
def test_a_right_supported_on_a_faithful_rewording_scores_as_supported(probe, logprobs, tmp_path, capsys):
    result = judged(tmp_path, capsys, probe, probe[3], "supported", logprobs)
    assert result["faithfulness"] >= 0.90, result
    explanation = result["faithfulness_explanation"]
    if logprobs:
        assert explanation.startswith(f"Expected share of claims supported by the context: {result['faithfulness']:.2f}")
    else:
        assert explanation == "1 of 1 claims are supported by the context."
    assert "words in the context" not in explanation


@pytest.mark.parametrize("logprobs", [False, True], ids=["no-logprobs", "logprobs"])
@pytest.mark.parametrize("probe", PROBES, ids=IDS)
def test_a_right_not_in_context_on_a_hallucination_scores_near_zero(probe, logprobs, tmp_path, capsys):
    result = judged(tmp_path, capsys, probe, probe[4], "not-in-context", logprobs)
    assert result["faithfulness"] <= 0.10, result
    explanation = result["faithfulness_explanation"]
    if result["faithfulness"] == 0.0:  # a whole "no" (or the names rule) counts 0 of 1
        assert explanation.startswith("0 of 1 claims are supported by the context. Not supported:")
    else:
        assert explanation.startswith(f"Expected share of claims supported by the context: {result['faithfulness']:.2f}")


def test_the_number_rule_overrides_a_wrong_supported_and_names_its_evidence(tmp_path, capsys):
    probe = PROBES[0]
    result = judged(tmp_path, capsys, probe, "The Eiffel Tower was completed in 1887.", "supported", False)
    assert result["faithfulness"] == 0.0
    assert "(the claim says 1887, the context says 1889)" in result["faithfulness_explanation"]


def _profile_with(tmp_path: Path, **parameters) -> Path:
    """The default profile with other faithfulness parameters, as a `--calibration` file."""
    profile = json.loads((Path(cli.__file__).resolve().parents[1] / "calibration/profiles/default.json").read_text())
    profile["id"] = "variant-for-this-test"
    profile["faithfulness"]["parameters"].update(parameters)
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    return path


def test_the_opt_in_names_rule_overrides_a_supported_claim_naming_what_the_context_never_states(tmp_path, capsys):
    """An answer's injected "evidence" talks the judge into "supported"; the default keeps the
    judge's verdict, the names rule (opt-in) does not: the claim names Paris, which the context
    never states, and the explanation says so."""
    claim = "Craig Newmark founded it in Paris."
    probe = ("en", "Who founded Craigslist?", "Craigslist was founded in 1995 by Craig Newmark.", None, claim, "x")
    assert judged(tmp_path, capsys, probe, claim, "supported", True)["faithfulness"] == 0.97
    judge = fakes.judge(extract_claims=fakes.claims(claim), check_claim=verdict_reply("supported", True))
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": probe[1], "answer": claim, "context": [probe[2]],
                                "metrics": ["faithfulness"]}), encoding="utf-8")
    with ScriptedEndpoint(judge) as endpoint:
        code = cli.main(["evaluate", str(item), "--no-embeddings", *endpoint.flags,
                         "--calibration", str(_profile_with(tmp_path, names_must_be_stated=True))])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["faithfulness"] == 0.0
    assert "(it names Paris, which the context never states; the names rule sets the judge's P(supported) 0.97 to 0)" \
        in result["faithfulness_explanation"]


def test_a_profile_that_scales_by_grounding_says_which_rule_lowered_the_claim_and_by_how_much(tmp_path, capsys):
    """The embedded judge's profile multiplies its verdict by grounding (fitted for a 1.5B judge);
    when that rule lowers a claim, the explanation names it, the judge's P and the result."""
    profile = tmp_path / "product.json"
    default = json.loads((Path(cli.__file__).resolve().parents[1] / "calibration/profiles/default.json").read_text())
    default["id"] = "product-for-this-test"
    default["faithfulness"]["parameters"]["support"] = {"kind": "product"}
    profile.write_text(json.dumps(default), encoding="utf-8")
    probe = PROBES[0]
    judge = fakes.judge(extract_claims=fakes.claims(probe[3]), check_claim=fakes.verdict("supported", 1),
                        answer_from_context={"answer": "1889"})
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": probe[1], "answer": probe[3], "context": [probe[2]],
                                "metrics": ["faithfulness"]}), encoding="utf-8")
    with ScriptedEndpoint(judge) as endpoint:
        code = cli.main(["evaluate", str(item), "--no-embeddings", "--calibration", str(profile), *endpoint.flags])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["faithfulness"] == 0.33
    explanation = result["faithfulness_explanation"]
    assert explanation.startswith("Expected share of claims supported by the context: 0.33, its one claim's P(supported).")
    assert ("lowered from the judge's 1.00 to 0.33 by the profile's grounding rule: only 33% of its words in the "
            "context; not found: construction, finished") in explanation
    assert "1 of 1" not in explanation
