"""Does an answer *explicitly* say it cannot answer? Decided in code, from the answer's words.

Seed 000 gives a faithfulness of 1.0 to an answer that "explicitly states it cannot answer
from the context". A 1.0 must never come by accident, and a 1.5B judge was seen flagging a
plain, substantive answer as a refusal (copying a prompt example), so the model's
`declines_to_answer` only counts when the answer's own words also state an inability.
The cues, in English, German, Spanish, French, Russian, Chinese, Japanese and Korean, live in
`judgegraph.text.refusals`.
"""

from __future__ import annotations

from ...text.refusals import states_inability

__all__ = ["states_inability"]
