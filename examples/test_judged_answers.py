"""judgegraph's pytest helper on three answers of a stand-in RAG app; the third gets a year wrong.

    python -m tests.support.demo_judge --port 8011 &          # or drop the flags: your judge
    pytest examples/test_judged_answers.py --judgegraph-base-url http://127.0.0.1:8011/v1 --judgegraph-model demo

Expected: 2 passed, 1 failed (faithfulness, with the claim that says 2007), then the table. Run it
again and the calls column is 0: every step comes from `.judgegraph_cache/`.
"""

from judgegraph.testing import assert_judged

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]


def rag_app(question: str) -> str:
    """The system under test (a stand-in)."""
    return {"Who founded Craigslist?": "Craigslist was founded in 1995 by Craig Newmark.",
            "What is 24 Hours on Craigslist?": "A documentary about a single day of Craigslist posts.",
            "When did the documentary come out?": "The documentary came out in 2007."}[question]


def judged(question: str) -> dict:
    return {"question": question, "answer": rag_app(question), "context": CONTEXT}


def test_founder():
    assert_judged(judged("Who founded Craigslist?"), faithfulness=0.8, answer_relevance=0.7)


def test_documentary():
    assert_judged(judged("What is 24 Hours on Craigslist?"), faithfulness=0.8, answer_relevance=0.7)


def test_release_year():
    assert_judged(judged("When did the documentary come out?"), faithfulness=0.8, answer_relevance=0.7)
