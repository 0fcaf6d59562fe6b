"""Agreement-with-humans and overhead benchmarks (run as `python -m benchmarks.<name>`)."""
