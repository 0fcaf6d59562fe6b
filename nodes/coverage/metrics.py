"""The `coverage` metrics: each module ends with its declaration (`MetricDeclaration`), and
one line here lists it (docs/adding-a-metric.md). The rubric's nodes, plan, output and metric
records loop over this tuple."""

from __future__ import annotations

from ...declarations.metric_declaration import MetricDeclaration
from .coverage_metric import COVERAGE

DECLARED: tuple[MetricDeclaration, ...] = (COVERAGE,)
