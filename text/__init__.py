"""Text rules for every script: one place that knows how a language cuts sentences, words and
numbers, which words carry no meaning, and how a refusal is worded.

Why one package: the claim rules (grounding, number conflicts, evidence quotes, clause splits,
refusal cues, the second reading's token F1) must not cut words on spaces the English way, or a
faithful Chinese claim gets a grounding of 0.0. Every such rule asks this package, so a new
script or language is handled in one place and tested per language
(`tests/text/test_text_*.py`).

Modules, one job each:
- `scripts`: which characters belong to scripts written without spaces (Chinese, Japanese);
- `languages`: the item's language (its `language` field, else detected) and the measured set;
- `tokens`: words, content words, word counts and answer tokens, for every script;
- `stopwords`: the words that carry no meaning, per language;
- `numbers`: numbers in every common notation, as canonical values;
- `sentences`: sentence and clause splitting;
- `refusals`: "I cannot answer" in the languages judgegraph is measured on;
- `memo`: the cache the rules above share, computing each text once even when threads ask for
  it at the same moment.
"""
