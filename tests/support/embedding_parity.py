"""rag items whose scores depend on embeddings, judged by a prompt-reading fake judge: the same
outputs must come out whichever way (and whenever) the item's texts are embedded.

Why a prompt-reading judge: the evidence lines a claim check shows, the lines a long context
keeps and the question's closeness all come from embeddings, and all of them reach the prompt.
The judge's reply is a function of the prompt's text (a crc32), so a line chosen differently
changes a verdict, and a changed verdict changes a score. `tests/graph/every_item/test_item_embeddings.py`
compares the outputs of the item's texts embedded ahead (`embed_item`) with those of each node
embedding its own texts when it runs, the path before issue #33. (Until the prompts' shared
prefix changed every prompt, it compared with main's outputs at commit 1fc117a, recorded in a
fixture.)
"""

from __future__ import annotations

import json
import re
import zlib

from judgegraph.graph.api import run_evaluation
from tests.support import fakes

_TOPICS = [
    "The river delta floods every spring and farmers plant rice after the water recedes.",
    "The observatory on the hill was built in 1887 and houses a refracting telescope.",
    "Local bakers use a sourdough starter that is said to be over a century old.",
    "The city council approved a new tram line connecting the harbour to the university.",
    "A rare orchid grows only on the north face of the limestone cliffs.",
    "The museum's collection includes 4,200 coins minted between 1650 and 1720.",
    "Winter temperatures in the valley rarely drop below minus five degrees.",
    "The annual regatta attracts rowing teams from twelve countries.",
]


def _long_context(core: list[str], repeat: int) -> list[str]:
    filler = [f"{sentence} (Record {n}.)" for n in range(repeat) for sentence in _TOPICS]
    half = len(filler) // 2
    return filler[:half] + core + filler[half:]


SHOWCASE = {
    "question": "Who founded the company featured on 24 Hours on Craigslist, and in what year was the documentary released?",
    "context": [
        "24 Hours on Craigslist is a 2005 American feature-length documentary that captures the people and stories behind a single day's posts on the classified ad website Craigslist.",
        "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark in San Francisco.",
    ],
    "answer": "Craigslist was founded by Craig Newmark, and the documentary came out in 2007.",
    "reference": "Craig Newmark founded Craigslist; the documentary was released in 2005.",
    "evaluation_goal": "fact-checking",
}

ITEMS: dict[str, dict] = {
    "showcase_en_short": SHOWCASE,
    "en_long": {
        "question": "When was the observatory on the hill built, and what does it house?",
        "context": _long_context(["The hill observatory opened to the public in 1890, three years after it was built.",
                                  "Its main instrument is a 30-centimetre refracting telescope."], 8),
        "answer": "The observatory was built in 1887. It houses a refracting telescope. It opened in 1890.",
        "reference": "It was built in 1887 and houses a refracting telescope.",
    },
    "de_short": {
        "question": "Wann wurde die Brücke eröffnet?",
        "context": ["Die Brücke über den Fluss wurde 1932 eröffnet.", "Sie ist 420 Meter lang und aus Stahl gebaut."],
        "answer": "Die Brücke wurde 1932 eröffnet und ist aus Stahl.",
        "reference": "Sie wurde 1932 eröffnet.",
    },
    "zh_long": {
        "question": "这座寺庙是哪一年建成的？",
        "context": ["这座寺庙建于公元一〇五〇年，位于山顶。", "寺庙每年春天举行庙会。"] +
                   [f"第{n}段：山下的村庄以种植茶叶闻名，村民每年采茶三次，茶叶远销海外各地。" for n in range(90)],
        "answer": "这座寺庙建于一〇五〇年。",
        "reference": "寺庙建于一〇五〇年。",
    },
    "fr_one_claim": {
        "question": "Quelle est la hauteur de la tour ?",
        "context": ["La tour mesure 330 mètres de haut.", "Elle a été construite pour l'Exposition universelle de 1889."],
        "answer": "La tour mesure 300 mètres.",
        "reference": "Elle mesure 330 mètres.",
    },
    "ja_short": {
        "question": "その橋はいつ完成しましたか？",
        "context": ["その橋は1998年に完成した。", "全長は3,911メートルである。"],
        "answer": "その橋は1998年に完成しました。全長は約3,900メートルです。",
        "reference": "1998年に完成した。",
    },
}

SETTINGS: dict[str, dict] = {
    "default": {},
    "all_signals": {"record_all_signals": True},
    "small_cap": {"context_cap_tokens": 64},
    "model_claims": {"claim_extraction": "model"},
    "batch_check": {"claim_check": "batch"},
}
"""Run settings each item is judged under (`JudgeContext` fields)."""

_VERDICTS = fakes.VERDICT_LABELS
_RELEVANCE = ("yes", "partly", "no")


def _crc(prompt: str) -> int:
    return zlib.crc32(prompt.encode("utf-8"))


def _check(prompt: str) -> dict:
    return fakes.verdict(_VERDICTS[_crc(prompt) % 3], 1)


def _batch_check(prompt: str) -> dict:
    claims = prompt.split("<claims>")[-1].split("</claims>")[0]
    count = len(re.findall(r"^\d+\. ", claims, flags=re.MULTILINE)) or 1
    return {"checks": [{"claim": n, "verdict": _VERDICTS[(_crc(prompt) + n) % 3], "line": 1} for n in range(1, count + 1)]}


def _relevance(prompt: str) -> dict:
    crc = _crc(prompt)
    return fakes.context_relevance(_RELEVANCE[crc % 3], [1 + crc % 2])


def _claims(item: dict):
    sentences = [s.strip() for s in item["answer"].replace("。", "。\n").split("\n") if s.strip()]
    return lambda prompt: fakes.claims(*sentences)


def prompt_reading_judge(item: dict) -> fakes.ScriptedJudge:
    """Replies that depend on what each prompt shows."""
    return fakes.judge(
        check_claim=_check, check_claims_batch=_batch_check, judge_context_relevance=_relevance,
        judge_answer_relevance=fakes.answer_relevance(), judge_semantic_similarity=lambda p: fakes.similarity(_crc(p) % 6),
        extract_claims=_claims(item), answer_from_context=lambda p: {"answer": p[-40:]},
    )


def outputs(embedder, run=run_evaluation) -> dict[str, dict]:
    """Every item under every setting: its result, its verdicts and a checksum of every prompt
    the judge was sent (durations and tokens left out: they are not the judgment). `run` is
    `run_evaluation` or any function with its signature (an awaiting run, in the tests)."""
    from judgegraph.run.context import JudgeContext

    found: dict[str, dict] = {}
    for item_name, item in ITEMS.items():
        for setting_name, settings in SETTINGS.items():
            judge = prompt_reading_judge(item)
            context = JudgeContext(model=judge, model_id="test:prompt-reading", embedder=embedder, **settings)
            judged = run(dict(item), model=context)
            verdicts = [{key: value for key, value in verdict.model_dump().items()}
                        for verdict in sorted(judged.verdicts, key=lambda v: v.index)]
            prompts = sorted(prompt for _, prompt, _ in judge.calls)
            found[f"{item_name}/{setting_name}"] = {
                "result": judged.result, "verdicts": verdicts,
                "prompt_crc32": [zlib.crc32(p.encode("utf-8")) for p in prompts],
            }
    return json.loads(json.dumps(found, sort_keys=True, default=str))

