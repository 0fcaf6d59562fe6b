"""Test doubles shared by the tests and the repository's benchmarks: a scripted in-process judge
(`fakes`), a real OpenAI-compatible HTTP server on 127.0.0.1 that injects faults
(`fault_server`) and serves a scripted judge (`scripted_server`) or a plausible demo judge
(`demo_judge`), a fixed-latency judge for the overhead benchmarks (`latency_judge`), and a
headless browser driver (`browser`). Repository-only: nothing installed imports it."""
