"""Test doubles shared by the tests and the repository's benchmarks: a scripted in-process judge
(`fakes`), a real OpenAI-compatible HTTP server on 127.0.0.1 that scripts replies and injects
faults (`fault_server`), a plausible demo judge served by it (`demo_judge`), and a headless
browser driver (`browser`). Repository-only: nothing installed imports it."""
