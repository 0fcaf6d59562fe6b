"""Does an answer say, in so many words, that it cannot answer? In every measured language.

The seed's refusal template is English ("I cannot answer because ..."), but an answer in German
or Chinese declines in its own words ("Ich kann die Frage nicht beantworten", "上下文中没有相关
信息"). The cues are matched in every language at once: they are specific enough not to fire
across languages, and an item's answer may decline in another language than its question.
"""

from __future__ import annotations

import regex

_SOURCES = r"(?:context|passages?|documents?|sources?|text|information (?:provided|given|available))"
_ENGLISH = [
    r"\b(?:can ?not|can't|unable to|not able to|won't be able to|am unable to)\b[^.!?]{0,40}"
    r"\b(?:answer|determine|find|tell|say|provide|know|identify|confirm)",
    r"\b(?:i|we) (?:do not|don't|did not|didn't) know\b",
    r"\bno (?:information|mention|details?|data|answer)\b[^.!?]{0,60}\b" + _SOURCES,
    r"\b" + _SOURCES + r"\b[^.!?]{0,40}\b(?:does not|doesn't|do not|don't|did not|didn't)\b[^.!?]{0,20}"
    r"\b(?:mention|say|state|contain|include|provide|specify|cover|give)",
    r"\bnot (?:mentioned|provided|stated|specified|given|available|included|found|covered)\b[^.!?]{0,30}"
    r"\b(?:in|by) the " + _SOURCES,
    r"\binsufficient (?:context|information)\b",
    r"\b(?:not enough|lack of) (?:context|information)\b",
]
_GERMAN = [
    r"\b(?:kann|können|konnte)\b[^.!?]{0,50}\bnicht\b[^.!?]{0,30}"
    r"\b(?:beantworten|sagen|bestimmen|feststellen|finden|angeben|erkennen)",
    r"\b(?:ich|wir) (?:weiß|wissen) (?:es )?nicht\b",
    r"\b(?:keine|nicht genügend|nicht genug|unzureichende) (?:Informationen|Angaben|Hinweise|Daten)\b",
    r"\b(?:Kontext|Text|Dokument|Dokumente|Quellen?|Passagen?)\b[^.!?]{0,40}\b(?:nicht|keine)\b[^.!?]{0,30}"
    r"\b(?:erwähnt|enthält|enthalten|genannt|angegeben|beschrieben)",
    r"\b(?:nicht|nirgends) (?:erwähnt|angegeben|genannt|enthalten)\b",
]
_SPANISH = [
    r"\bno (?:puedo|podemos|es posible|se puede)\b[^.!?]{0,40}"
    r"\b(?:responder|contestar|determinar|saber|decir|encontrar|identificar|confirmar)",
    r"\bno (?:lo )?(?:sé|sabemos)\b",
    r"\bno (?:hay|se (?:menciona|proporciona|indica)|contiene|existe)\b[^.!?]{0,30}"
    r"\b(?:información|datos|mención|contexto|documentos?)\b",
    r"\b(?:información|contexto) insuficiente\b",
    r"\bel (?:contexto|texto|documento)\b[^.!?]{0,30}\bno\b[^.!?]{0,20}"
    r"\b(?:menciona|dice|contiene|incluye|proporciona|especifica|indica)",
]
_FRENCH = [
    r"\b(?:je|nous|on) ne (?:peux|pouvons|peut|suis|sommes)\b[^.!?]{0,40}"
    r"\b(?:répondre|déterminer|dire|savoir|trouver|identifier|confirmer|en mesure)",
    r"\b(?:je|nous) ne (?:le )?(?:sais|savons) pas\b",
    r"\b(?:aucune|pas d['’]|pas assez d['’]|pas suffisamment d['’])\s?(?:information|informations|donnée|données|mention)\b",
    r"\b(?:le|les) (?:contexte|texte|documents?|passages?)\b[^.!?]{0,30}\bne\b[^.!?]{0,30}"
    r"\b(?:mentionne|mentionnent|dit|disent|contient|contiennent|précise|précisent|indique)",
    r"\binformations? insuffisantes?\b",
]
_RUSSIAN = [
    r"\b(?:не могу|не можем|невозможно|нельзя|не удается|не удаётся)\b[^.!?]{0,40}"
    r"(?:ответить|определить|сказать|найти|установить|подтвердить)",
    r"\b(?:я|мы) не зна(?:ю|ем)\b",
    r"\b(?:нет|отсутствует|отсутствуют|недостаточно)\b[^.!?]{0,20}(?:информаци|данных|сведений|упоминани)",
    r"\b(?:в контексте|в тексте|в документах?|в источниках?)\b[^.!?]{0,30}\bне\b[^.!?]{0,20}"
    r"(?:упомина|говорит|указ|сказано|содерж)",
]
_CHINESE = [
    r"(?:无法|不能|没法|难以|没有办法)(?:回答|确定|判断|得知|提供|找到|确认|给出)",
    r"(?:我|我们)?不知道",
    r"(?:上下文|文本|文中|文档|资料|材料|段落|提供的信息)[^。！？]{0,15}(?:没有|未|并未|并没有|不包含)"
    r"[^。！？]{0,10}(?:提到|提及|提供|包含|说明|给出|相关信息|信息)",
    r"(?:没有|缺乏|缺少)(?:足够的?|相关的?)?(?:信息|上下文|资料)",
    r"信息不足",
]
_JAPANESE = [
    r"(?:答え|回答|判断|特定|確認)(?:でき|られ)(?:ません|ない)",
    r"(?:わかり|分かり)ません",
    r"(?:情報|記載|記述|言及)(?:が|は)?(?:あり|含まれて(?:い)?)?ません",
    r"(?:記載|言及|記述)(?:は|が)?されて(?:い)?(?:ません|ない)",
    r"(?:文脈|文章|文書|コンテキスト|資料)[^。！？]{0,15}(?:記載|言及|情報)[^。！？]{0,10}(?:ない|ません)",
    r"情報(?:が)?不足",
]
_KOREAN = [
    r"(?:답변|대답|판단|확인)(?:할|하기|을 할) 수 없",
    r"(?:모르겠|알 수 없)",
    r"(?:정보|언급|내용)(?:가|이|는)? 없",
]
CUES = {"en": _ENGLISH, "de": _GERMAN, "es": _SPANISH, "fr": _FRENCH, "ru": _RUSSIAN,
        "zh": _CHINESE, "ja": _JAPANESE, "ko": _KOREAN}
"""Refusal cues per language; `states_inability` tries them all."""

_PATTERN = regex.compile(
    "|".join(f"(?:{cue})" for cues in CUES.values() for cue in cues), regex.IGNORECASE
)


def states_inability(answer: str) -> bool:
    """True when the answer says in so many words that it cannot answer (from the context)."""
    return bool(_PATTERN.search(" ".join(answer.replace("\u2019", "'").split())))
