"""GitOps-safe: the same values give the same bytes, so an install that Argo CD renders stays Synced.

Argo CD renders a chart with `helm template`: there is no cluster to `lookup`, and anything random or
time-dependent in a template changes on every refresh (OutOfSync forever, a token that flips). Tokens
come from the secret-init hook Job or `existingSecret` instead (test_chart_secret_init.py).
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.integration.chart.chartkit import CHART, SCENARIOS, find, render, template_args, tool

pytestmark = pytest.mark.upstream

# sprig/helm functions whose result differs between two renders, or needs a live cluster
NON_DETERMINISTIC = ("lookup", "randAlphaNum", "randAlpha", "randNumeric", "randAscii", "randBytes", "randInt",
                     "uuidv4", "now", "date", "genCA", "genPrivateKey", "genSelfSignedCert", "genSignedCert",
                     "derivePassword", "htpasswd", "bcrypt", "shuffle")  # fmt: skip


def fresh_render(args: tuple[str, ...]) -> bytes:
    """A separate helm process each time (chartkit caches renders by arguments)."""
    return subprocess.run([tool("helm"), *args], capture_output=True, check=True, timeout=120).stdout


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_two_renders_are_byte_identical(scenario: str) -> None:
    args = template_args(values=(scenario,))
    first, second = fresh_render(args), fresh_render(args)
    assert first == second
    assert len(first) > 10_000  # a real render, hooks included


def test_no_template_calls_a_non_deterministic_function() -> None:
    calls = re.compile(r"{{-?[^}]*\b(" + "|".join(NON_DETERMINISTIC) + r")\b[^}]*}}")
    found = [
        f"{path.relative_to(CHART)}: {m.group(0)}"
        for path in sorted(CHART.glob("templates/**/*"))
        if path.is_file()
        for m in calls.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_secret_value_is_rendered(scenario: str) -> None:
    docs = render(values=(scenario,))
    assert not find(docs, "Secret")
    # a hook's arguments name the Secrets and their keys, never a value
    for job in find(docs, "Job"):
        for container in job["spec"]["template"]["spec"]["containers"]:
            assert "env" not in container and "stringData" not in str(container)
