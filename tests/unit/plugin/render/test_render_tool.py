"""Running helm and kustomize (plugin/render/tool.py): bounded output, stderr masked before it is trimmed,
and an environment without a way to the network; stand-in tools are shell scripts on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argocd_lifecycle.errors import RenderError, ToolError
from argocd_lifecycle.plugin.render.tool import DEAD_PROXY, MaskOnly, start_tool, tool_env


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "tool"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def run(tmp_path: Path, body: str, *, max_output: int = 1 << 20, mask: str = "") -> str:
    with start_tool(
        "helm",
        [script(tmp_path, body)],
        cwd=tmp_path,
        max_output=max_output,
        overlap=MaskOnly(lambda text: text.replace(mask, "***") if mask else text),
    ) as running:
        return running.output()


def test_output_past_the_cap_stops_the_tool(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"helm printed more than 1 KiB; refused \(parameter maxOutputBytes\)"):
        run(tmp_path, "yes 0123456789\n", max_output=1024)  # would never end by itself


def test_stderr_is_masked_before_it_is_trimmed(tmp_path: Path) -> None:
    secret = "s3cret-" + "x" * 3000
    with pytest.raises(ToolError) as caught:
        run(tmp_path, f"echo 'Error: bad value {secret}' >&2\nexit 1\n", mask=secret)
    assert caught.value.message == "helm failed (exit 1): Error: bad value ***"


def test_a_tool_reads_nothing_from_stdin(tmp_path: Path) -> None:
    assert run(tmp_path, "cat; echo done\n") == "done\n"


def test_offline_tools_see_a_dead_proxy_and_no_git_transport() -> None:
    env = tool_env(offline=True)
    assert env["HTTPS_PROXY"] == env["https_proxy"] == env["HTTP_PROXY"] == DEAD_PROXY
    assert (env["NO_PROXY"], env["GIT_ALLOW_PROTOCOL"]) == ("", "none")
    assert (
        "GIT_ALLOW_PROTOCOL" not in tool_env(offline=False) or tool_env(offline=False)["GIT_ALLOW_PROTOCOL"] != "none"
    )


def test_output_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"printed text that is not UTF-8 \(byte 0\)"):
        run(tmp_path, "printf '\\377'\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_check_that_fails_while_the_tool_runs_kills_it_and_nothing_is_read(tmp_path: Path) -> None:
    # the renderers start the tool first and run checks that need not hold it back meanwhile
    marker = tmp_path / "printed"
    argv = [script(tmp_path, f"sleep 5; echo out > {marker}\n")]
    cleaned: list[bool] = []

    class Checked(MaskOnly):
        def meanwhile(self) -> None:
            raise RenderError("chart needs dependencies that are not vendored in charts/: db 1.0")

        def done(self) -> None:
            cleaned.append(True)

    with (
        pytest.raises(RenderError, match="not vendored"),
        start_tool(
            "helm",
            argv,
            cwd=tmp_path,
            max_output=1 << 20,
            overlap=Checked(),
        ) as running,
    ):
        pid = running.pid
        running.output()
    assert not _alive(pid) and cleaned == [True] and not marker.exists()


def test_a_tool_not_on_path_is_named_with_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        ToolError, match=r"kustomize not found \('kustomize'\); install it or set ARGOCD_LIFECYCLE_KUSTOMIZE"
    ):
        start_tool("kustomize", ["kustomize", "build"], cwd=tmp_path, max_output=1024, overlap=MaskOnly())
