"""The lifecycle event body: the documented example in docs/architecture.md has exactly its fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

from argocd_lifecycle.lifecycle_event import LifecycleEventBody

ARCHITECTURE = Path(__file__).resolve().parents[3] / "docs" / "architecture.md"


def test_the_documented_example_has_every_field_and_no_other() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)]
    examples = [b for b in blocks if isinstance(b, dict) and "previousPhase" in b]
    assert len(examples) == 1, "docs/architecture.md should show one lifecycle event"
    assert set(examples[0]) == set(LifecycleEventBody.__annotations__)
    assert all(isinstance(v, str) for v in examples[0].values())  # every field is a string on the wire
