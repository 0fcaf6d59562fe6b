"""The claim pipeline shared by `rag` and `liverag`: extract claims, pick evidence, check each claim, decide its verdict, score faithfulness."""
