"""Rich console views: the step-by-step trace tree and the claims table (always on stderr)."""
