"""The nodes every item runs, whatever its rubric: input validation, a conversation's standalone question, the item's embeddings, and the final assembly."""
