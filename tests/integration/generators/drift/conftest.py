"""The preflight's real kube-apiserver (Argo CD's CRDs, the chart's Role and admission policy), started
once for the drift tests too (a module-scoped fixture: one per module)."""

from __future__ import annotations

from tests.integration.generators.preflight.conftest import chart_api

__all__ = ["chart_api"]
