"""The `liverag` rubric (seed 002): relevance and the graded faithfulness output."""
