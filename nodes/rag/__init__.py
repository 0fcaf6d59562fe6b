"""The `rag` rubric (seed 000): context relevance, answer relevance, semantic similarity and the 11-key output."""
