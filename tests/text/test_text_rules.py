"""The text rules of `judgegraph.text`, per language and script: sentences, clauses, words,
content words, numbers, refusals, answer tokens and the item's language."""

from __future__ import annotations

import pytest

from judgegraph.nodes.claims.code_checks import asks_for_number, grounding, number_conflict
from judgegraph.nodes.claims.second_reading import token_f1
from judgegraph.text.languages import MEASURED_LANGUAGES, ItemLanguage, detect_language, item_language, primary_subtag
from judgegraph.text.numbers import numbers_in
from judgegraph.text.quotes import normalise, quote_found
from judgegraph.text.refusals import states_inability
from judgegraph.text.segmentation import answer_claims
from judgegraph.text.sentences import split_clauses, split_sentences
from judgegraph.text.tokens import answer_tokens, content_words, word_count, words

# --- sentences ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("en", "Paris is big. It is old! Really?", ["Paris is big.", "It is old!", "Really?"]),
        ("de", "Die Stadt hat z. B. viele Parks, d. h. Grün. Über 3,7 Millionen leben dort.",
         ["Die Stadt hat z. B. viele Parks, d. h. Grün.", "Über 3,7 Millionen leben dort."]),
        ("es", "¿Dónde está? ¡Aquí! El Sr. López vino.", ["¿Dónde está?", "¡Aquí!", "El Sr. López vino."]),
        ("fr", "Mme Dupont habite à Paris. Élise aussi.", ["Mme Dupont habite à Paris.", "Élise aussi."]),
        ("ru", "Он родился в Москве. Это т. е. город. Ёлка стоит.",
         ["Он родился в Москве.", "Это т. е. город.", "Ёлка стоит."]),
        ("zh", "北京是中国的首都。它有很多人口！你知道吗？是的",
         ["北京是中国的首都。", "它有很多人口！", "你知道吗？", "是的"]),
        ("zh", "他问：对吗?对的。", ["他问：对吗?", "对的。"]),
        ("ja", "東京は日本の首都です。人口は約1400万人です。「はい」と彼は言った。",
         ["東京は日本の首都です。", "人口は約1400万人です。", "「はい」と彼は言った。"]),
        ("ja", "「行きます。」彼は言った。", ["「行きます。」", "彼は言った。"]),
        ("ko", "서울은 한국의 수도이다. 인구가 많다.", ["서울은 한국의 수도이다.", "인구가 많다."]),
    ],
)
def test_sentences_in_every_script(language, text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("language", "sentence", "clauses"),
    [
        ("de", "Die Stadt wurde im Jahr 1200 gegründet, und der Dom wurde viel später gebaut.",
         ["Die Stadt wurde im Jahr 1200 gegründet.", "Der Dom wurde viel später gebaut."]),
        ("de", "Er mag Äpfel, Birnen, und Kirschen.", ["Er mag Äpfel, Birnen, und Kirschen."]),  # a list
        ("es", "La ciudad fue fundada en el año 1200, pero la catedral se construyó mucho después.",
         ["La ciudad fue fundada en el año 1200.", "La catedral se construyó mucho después."]),
        ("fr", "La ville a été fondée en 1200, mais la cathédrale fut construite bien plus tard.",
         ["La ville a été fondée en 1200.", "La cathédrale fut construite bien plus tard."]),
        ("ru", "Город был основан в 1200 году, но собор построили гораздо позже этого.",
         ["Город был основан в 1200 году.", "Собор построили гораздо позже этого."]),
        ("zh", "北京是中国的首都和最大的城市，但是上海的人口比北京更多一些。",
         ["北京是中国的首都和最大的城市。", "但是上海的人口比北京更多一些。"]),
        ("zh", "他来了；她走了很长时间。", ["他来了。", "她走了很长时间。"]),
    ],
)
def test_clauses_in_every_language(language, sentence, clauses):
    assert split_clauses(sentence) == clauses


def test_a_chinese_answer_is_cut_into_sentence_claims():
    assert answer_claims("该公司成立于2005年。总部位于上海。") == ["该公司成立于2005年。", "总部位于上海。"]


# --- words -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "The cats were in the Houses", ["cat", "house"]),
        ("de", "Die Katzen waren in den Häusern", ["katzen", "häusern"]),
        ("es", "Los gatos estaban en las casas", ["gatos", "casas"]),
        ("fr", "Les chats étaient dans les maisons", ["chats", "maisons"]),
        ("ru", "Кошки были в домах", ["кошки", "домах"]),
        ("zh", "北京是中国的首都", ["北", "京", "中", "国", "首", "都"]),
        ("ja", "東京は日本の首都です", ["東", "京", "日", "本", "首", "都"]),
    ],
)
def test_content_words_per_language(language, text, expected):
    assert content_words(text, language) == expected


def test_words_split_mixed_scripts_and_fold_full_width_forms():
    assert words("ｉＰｈｏｎｅ１５发布于2023年") == ["iphone15", "发", "布", "于", "2023", "年"]
    assert words("Tokyo（東京）") == ["tokyo", "東", "京"]


@pytest.mark.parametrize(
    ("text", "count"),
    [("The film came out in 2007.", 6), ("北京是中国的首都", 4), ("Apple在2007年发布了iPhone", 6), ("", 0)],
)
def test_word_count_counts_chinese_by_two_characters(text, count):
    assert word_count(text) == count


# --- grounding and quotes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "claim", "context"),
    [
        ("zh", "该公司的总部位于上海。", "这家公司成立于2005年，总部设在上海。"),
        ("ja", "本社は大阪にあります。", "この会社は2005年に設立され、本社は大阪にある。"),
        ("de", "Der Hauptsitz liegt in Berlin.", "Das Unternehmen wurde 2005 gegründet; sein Hauptsitz liegt in Berlin."),
        ("ru", "Штаб-квартира находится в Москве.", "Компания основана в 2005 году, штаб-квартира находится в Москве."),
    ],
)
def test_a_faithful_claim_is_grounded_in_every_script(language, claim, context):
    assert grounding(claim, "", context, language) >= 0.6
    assert grounding(claim, "", "完全无关的内容。Völlig andere Dinge. Совсем другое.", language) <= 0.3


def test_a_chinese_quote_is_found_inside_a_sentence_without_spaces():
    passages = ["这家公司成立于2005年，总部设在上海。"]
    assert quote_found("总部设在上海", passages)
    assert not quote_found("总部设在北京", passages)
    assert normalise("ＡＢＣ，北京") == "abc 北 京"


# --- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "values"),
    [
        (None, "It sold 1,500 copies in 1999.", {"1500", "1999"}),
        (None, "sold 15 copies, 3.5 times", {"15", "3.5"}),
        (None, "3.7 million and 3,700,000", {"3700000"}),
        (None, "Twenty-one days, three hundred and five people", {"21", "305"}),
        ("en", "one of them came second", set()),  # a lone "one" is a word
        ("de", "3,7 Millionen Einwohner", {"3700000"}),
        ("de", "1.500 Menschen, 1.234,5 Euro", {"1500", "1234.5"}),
        ("de", "drei Millionen", {"3000000"}),
        ("es", "2,5 millones y 5 mil", {"2500000", "5000"}),
        ("fr", "3 000 000 d'euros, 3 millions", {"3000000"}),
        ("ru", "3,7 млн человек", {"3700000"}),
        (None, "１９９９年", {"1999"}),
        (None, "３７０万人", {"3700000"}),
        (None, "人口为３，７００万", {"37000000"}),
        (None, "１，２，３", {"1", "2", "3"}),  # full-width commas list numbers in Chinese
        (None, "3.0 and 3.00", {"3"}),
        (None, "In 1999 100 people", {"1999", "100"}),  # spaces never join numbers in English
        ("fr", "en 2005 100 personnes", {"2005", "100"}),
        (None, "5 mil", {"5"}),  # "mil" is a scale word in Spanish and Portuguese only
    ],
)
def test_numbers_in_every_notation(language, text, values):
    assert numbers_in(text, language) == values


@pytest.mark.parametrize(
    ("language", "claim", "context", "claimed", "found"),
    [
        ("de", "Die Stadt hat 4,2 Millionen Einwohner.", "Die Stadt hat 3,7 Millionen Einwohner.", "4200000", "3700000"),
        ("zh", "该公司成立于２００７年。", "这家公司成立于2005年。", "2007", "2005"),
        ("ja", "人口は約１５００万人です。", "人口は約1400万人です。", "15000000", "14000000"),
        ("en", "The film came out in two thousand seven.", "The film came out in 2005.", "2007", "2005"),
    ],
)
def test_a_different_number_is_a_conflict_in_any_notation(language, claim, context, claimed, found):
    conflict = number_conflict(claim, "", context, [context], language)
    assert conflict is not None and (conflict.claimed, conflict.found) == (claimed, found)


@pytest.mark.parametrize(
    ("language", "claim", "context"),
    [
        ("de", "Die Stadt hat 3,7 Millionen Einwohner.", "The city has 3.7 million inhabitants."),
        ("zh", "该公司成立于２００５年。", "这家公司成立于2005年。"),
        ("en", "It has 3,700,000 inhabitants.", "It has 3.7 million inhabitants."),
    ],
)
def test_the_same_number_in_another_notation_is_no_conflict(language, claim, context):
    assert number_conflict(claim, "", context, [context], language) is None


@pytest.mark.parametrize(
    "question",
    ["When was it founded?", "Wie viele Einwohner hat Berlin?", "¿Cuántos habitantes tiene?",
     "Combien d'habitants?", "Сколько жителей?", "这家公司是哪一年成立的？", "人口は何人ですか？"],
)
def test_questions_asking_for_a_number_in_every_language(question):
    assert asks_for_number(question)


def test_a_question_not_asking_for_a_number():
    assert not asks_for_number("Wer hat die Firma gegründet?") and not asks_for_number("谁创立了这家公司？")


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "I cannot answer because the context does not mention it.",
        "Ich kann die Frage anhand des Kontexts nicht beantworten.",
        "Der Kontext enthält keine Informationen dazu.",
        "No puedo responder a la pregunta con este contexto.",
        "Je ne peux pas répondre à cette question.",
        "Le contexte ne mentionne pas cette information.",
        "Я не могу ответить на этот вопрос.",
        "В контексте не упоминается эта информация.",
        "根据上下文无法回答这个问题。",
        "上下文中没有提到相关信息。",
        "文脈からは答えられません。",
        "この情報は記載されていません。",
        "주어진 정보로는 답변할 수 없습니다.",
    ],
)
def test_a_refusal_is_recognised_in_every_language(answer):
    assert states_inability(answer)


@pytest.mark.parametrize(
    "answer",
    ["Die Stadt hat 3,7 Millionen Einwohner.", "La ciudad no es grande.", "Он не знал об этом городе.",
     "北京是中国的首都。", "東京は日本の首都です。", "Craig Newmark founded it."],
)
def test_a_plain_answer_is_no_refusal(answer):
    assert not states_inability(answer)


# --- answer tokens and token F1 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "tokens"),
    [
        (None, "The Eiffel Tower!", ["eiffel", "tower"]),
        ("de", "Der Eiffelturm", ["eiffelturm"]),
        ("es", "La Torre Eiffel", ["torre", "eiffel"]),
        ("fr", "L'Académie française", ["académie", "française"]),
        ("ru", "Эйфелева башня", ["эйфелева", "башня"]),
        ("zh", "埃菲尔铁塔。", ["埃", "菲", "尔", "铁", "塔"]),
        ("ja", "東京タワー", ["東", "京", "タ", "ワ", "ー"]),
    ],
)
def test_answer_tokens_per_language(language, text, tokens):
    assert answer_tokens(text, language) == tokens


def test_token_f1_of_chinese_answers_is_over_characters():
    assert token_f1("上海", "上海市", "zh") == pytest.approx(0.8)
    assert token_f1("北京", "上海", "zh") == 0.0
    assert token_f1("the Eiffel Tower", "Eiffel Tower") == 1.0  # English unchanged


# --- the item's language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Who founded the company that made the film?", "en"),
        ("Wer hat das Unternehmen gegründet, das den Film gemacht hat?", "de"),
        ("¿Quién fundó la empresa que hizo la película?", "es"),
        ("Qui a fondé l'entreprise qui a produit le film ?", "fr"),
        ("Кто основал компанию, которая сняла этот фильм?", "ru"),
        ("谁创立了制作这部电影的公司？", "zh"),
        ("この映画を作った会社は誰が設立しましたか？", "ja"),
        ("이 영화를 만든 회사는 누가 설립했습니까?", "ko"),
        ("Chi ha fondato l'azienda che ha prodotto il film?", "it"),
        ("The capital is 北京.", "en"),  # a Chinese name does not make English Chinese
        ("12345 !!", None),
    ],
)
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_the_item_field_wins_and_unmeasured_languages_are_flagged():
    assert item_language("zh-Hans-CN", "Who?", "Him.") == ItemLanguage("zh", "item")
    assert item_language(None, "Wer hat es gegründet?", "Craig Newmark hat es gegründet.").code == "de"
    italian = item_language("it", "Chi?", "Lui.")
    assert not italian.measured and "Italian (it" in italian.note and "not among the measured" in italian.note
    assert ItemLanguage("de", "detected").note is None and ItemLanguage(None, "detected").note is None
    assert set(MEASURED_LANGUAGES) == {"en", "zh", "ja", "de", "ru", "es", "fr"}


@pytest.mark.parametrize("tag", ["", "german!", "{{ 7*7 }}", "d", "en-"])
def test_a_malformed_language_tag_is_refused(tag):
    with pytest.raises(ValueError, match="not a language tag"):
        primary_subtag(tag)
