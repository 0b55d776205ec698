"""A local git repository that the repo-server reads by file:// (Argo CD's own e2e default)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .procs import HarnessError

_IDENTITY = {
    "GIT_AUTHOR_NAME": "e2e",
    "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
    "GIT_COMMITTER_NAME": "e2e",
    "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


class GitRepo:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._git("init", "-q", "-b", "main")

    @property
    def url(self) -> str:
        return f"file://{self.folder}"

    def _git(self, *args: str) -> str:
        try:
            out = subprocess.run(
                ["git", *args],
                cwd=self.folder,
                env={**os.environ, **_IDENTITY},
                capture_output=True,
                text=True,
                check=True,
            )
        except subprocess.CalledProcessError as exc:
            raise HarnessError(f"git {' '.join(args)} failed in {self.folder}: {exc.stderr.strip()}") from exc
        return out.stdout.strip()

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            path = self.folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def copy_tree(self, source: Path, dest: str) -> None:
        shutil.copytree(source, self.folder / dest, dirs_exist_ok=True)

    def tag(self, name: str) -> None:
        """A lightweight tag at HEAD (a revision an Application may target)."""
        self._git("tag", "-f", name)

    def commit(self, message: str) -> str:
        self._git("add", "-A")
        self._git("commit", "-q", "--allow-empty", "-m", message)
        return self._git("rev-parse", "HEAD")
