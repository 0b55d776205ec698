"""The table and Markdown outputs: one row per entry, whatever the message holds."""

from __future__ import annotations

from datetime import UTC, datetime

from argocd_lifecycle.notifications.timeline import render_text
from argocd_lifecycle.notifications.timeline.model import Entry, Lane, ObjectRef, Timeline

T0 = datetime(2026, 3, 4, 14, 2, 11, tzinfo=UTC)


def test_markdown_keeps_one_row_per_entry_whatever_the_message() -> None:
    entry = Entry(
        time=T0,
        last_time=T0,
        lane=Lane.OPERATION,
        reason="OperationCompleted",
        object=ObjectRef("Application", "web`s", "argocd"),
        message="failed: a | b\nsecond line <script>",
        source="argocd-application-controller",
        type="Warning",
    )
    text = render_text.markdown(Timeline(app="web", namespace="argocd", entries=(entry,)), UTC)
    row = next(line for line in text.splitlines() if line.startswith("| 2026"))
    assert row.endswith("| failed: a \\| b second line &lt;script> |")
    assert "`Application/web's`" in row
    assert "**OperationCompleted**" in row
