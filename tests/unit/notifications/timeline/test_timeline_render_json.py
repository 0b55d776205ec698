"""The JSON output: its published schema, the recorded documents, and the keys every entry carries."""

from __future__ import annotations

import json
from datetime import UTC
from xml.etree import ElementTree

import pytest
from jsonschema import Draft202012Validator

from argocd_lifecycle.notifications.timeline import render_json, render_svg
from argocd_lifecycle.notifications.timeline.model import Timeline

from .conftest import STORIES, story


@pytest.mark.parametrize("app", sorted(STORIES))
def test_json_validates_against_the_published_schema(app: str) -> None:
    schema = render_json.schema()
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(render_json.document(story(app))), key=str)
    assert errors == []


@pytest.mark.parametrize("app", sorted(STORIES))
def test_json_matches_the_recorded_document(app: str) -> None:
    """A change of schema or content shows up here; regenerate with the command in the README."""
    expected = json.loads((STORIES[app] / "expected-timeline.json").read_text())
    assert json.loads(render_json.render(story(app))) == expected


def test_every_entry_key_is_always_present() -> None:
    keys = {tuple(e) for e in render_json.document(story("payments"))["entries"]}
    assert keys == {
        (
            "time", "offsetSeconds", "lane", "reason", "type", "object", "message", "source",
            "firstTime", "lastTime", "count", "span", "timestampsLost",
        )
    }  # fmt: skip


def test_an_empty_timeline_is_valid_json_and_svg() -> None:
    empty = Timeline(app="ghost", namespace="argocd", entries=())
    doc = render_json.document(empty)
    assert doc["entries"] == []
    Draft202012Validator(render_json.schema()).validate(doc)
    ElementTree.fromstring(render_svg.render(empty, UTC))
