"""The SVG chart, rendered to PNG and looked at."""

from __future__ import annotations

import functools
import io
from datetime import UTC
from xml.etree import ElementTree

import cairosvg
import numpy as np
import pytest
from PIL import Image

from argocd_lifecycle.notifications.timeline import render_svg

from .conftest import STORIES, story

SVG_NS = "{http://www.w3.org/2000/svg}"


def png(svg: str) -> Image.Image:
    data = cairosvg.svg2png(bytestring=svg.encode(), output_width=1600)
    return Image.open(io.BytesIO(data)).convert("RGB")


@functools.cache
def chart(app: str) -> tuple[str, Image.Image]:
    """Each story's chart, drawn and rasterised once for the module (cairosvg takes seconds)."""
    svg = render_svg.render(story(app), UTC)
    return svg, png(svg)


def share(image: Image.Image, color: str, tolerance: int = 40) -> float:
    """Fraction of the pixels within ``tolerance`` of ``color`` on every channel."""
    target = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
    pixels = np.asarray(image, dtype=np.int16)
    return float(np.all(np.abs(pixels - target) <= tolerance, axis=-1).mean())


@pytest.mark.parametrize("app", sorted(STORIES))
def test_svg_renders_to_a_readable_png(app: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    svg, image = chart(app)
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    image.save(tmp_path / f"{app}.png")  # kept by pytest's tmp_path for a look
    assert image.width == 1600 and image.height > 600
    inked = 1 - share(image, "#ffffff", tolerance=8)
    assert inked > 0.08  # lanes, dots, bars and text, not a blank page
    rgb = np.asarray(image).reshape(-1, 3).astype(np.int32)
    colours = np.unique(rgb[:, 0] << 16 | rgb[:, 1] << 8 | rgb[:, 2])
    assert len(colours) > 50  # anti-aliased text and colours
    for lane_color in (
        render_svg.COLORS[lane] for lane in render_svg.LANES if lane.value not in ("Cluster", "Rollout")
    ):
        assert share(image, lane_color) > 0.0005, lane_color


def marks(svg: str) -> dict[str, int]:
    """Dots drawn per lane: each carries the id ``mark-<lane>-<n>``."""
    counts: dict[str, int] = {}
    for element in ElementTree.fromstring(svg).iter():
        gid = element.get("id", "")
        if gid.startswith("mark-"):
            lane = gid.split("-")[1]
            counts[lane] = counts.get(lane, 0) + 1
    return counts


def test_every_lane_draws_its_marks() -> None:
    assert marks(chart("payments")[0]) == {"Operation": 4, "Sync": 2, "Health": 1, "Resource": 12, "Cluster": 2}
    assert marks(chart("checkout")[0]) == {"Operation": 6, "Sync": 2, "Health": 3, "Resource": 10}


def test_warnings_are_red_in_the_failed_sync_chart() -> None:
    _, image = chart("payments")
    assert share(image, render_svg.WARNING) > 0.003  # failed operation bar, BackOff spans, red labels
    _, calm = chart("checkout")
    assert share(calm, render_svg.WARNING) < share(image, render_svg.WARNING) / 3


def test_svg_output_is_deterministic() -> None:
    timeline = story("checkout")
    assert render_svg.render(timeline, UTC) == render_svg.render(timeline, UTC)
