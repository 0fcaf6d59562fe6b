"""The `expected_output` metrics: each module ends with its declaration (`MetricDeclaration`),
and one line here lists it (docs/adding-a-metric.md). The rubric's nodes, plan, output and
metric records loop over this tuple."""

from __future__ import annotations

from ...declarations.metric_declaration import MetricDeclaration
from .expected_output_metric import EXPECTED_OUTPUT

DECLARED: tuple[MetricDeclaration, ...] = (EXPECTED_OUTPUT,)
