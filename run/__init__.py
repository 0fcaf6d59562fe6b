"""What every step of a run reads and writes, below the rubrics: the run's typed state
(`state.py`) and context (`context.py`: the judge, the settings, the calibration profile),
the step wrapper that turns a step into a LangGraph node (`step_nodes.py`), the one-call
judgment step (`judgment_step.py`), trace events (`tracing.py`), and the item's one view of
its context (`context_view.py`). It imports no rubric and nothing of `graph/`: every node
builds on it, and the graph's builder, above the rubrics, wires them."""
