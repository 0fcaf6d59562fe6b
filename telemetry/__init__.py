"""OpenTelemetry export of judged items: one trace per item, one span per step, built from the
step trace judgegraph already keeps.

Nothing here is imported unless `--otel` (or `JUDGEGRAPH_OTEL=1`) asks for it, and only
`span_builder` and `exporter` import `opentelemetry` (the `otel` extra); see docs/tracing.md.
"""
