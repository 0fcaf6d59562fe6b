"""The `coverage` rubric (seed 003): reference elements, their checks, terms, organization and the 0-5 formula."""
