"""The SQLite state's files are private: the database and its ``-wal`` and ``-shm`` files 0600, their
folder 0700.

They hold what the receiver will send and to whom, and who is silenced; a process that could write
them could make the receiver post its own messages. The folder is created 0700 when missing; an
existing folder that group or others may write to is refused (nothing here changes the mode of a
folder it did not create). The database file is created 0600 before SQLite opens it, and SQLite
creates the ``-wal`` and ``-shm`` files with the database file's mode; files left looser by an older
version are tightened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from argocd_lifecycle.notifications.receiver.state import StateError

FILE_MODE, FOLDER_MODE = 0o600, 0o700


def prepare(path: Path) -> None:
    """Make ``path``'s folder and files private before SQLite opens it; StateError when it cannot be."""
    folder = path.parent
    try:
        if not folder.exists():
            folder.mkdir(parents=True, mode=FOLDER_MODE)
            os.chmod(folder, FOLDER_MODE)  # mkdir's mode passes through the umask
        elif folder.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            mode = stat.S_IMODE(folder.stat().st_mode)
            raise StateError(
                f"sqlite state folder {folder} may be written by group or others (mode {mode:04o}): "
                f"use a private folder (chmod 0700 {folder}, or a path in a new folder)"
            )
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
        for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            if file.exists() and stat.S_IMODE(file.stat().st_mode) & ~FILE_MODE:
                os.chmod(file, FILE_MODE)
    except OSError as exc:
        raise StateError(f"cannot prepare sqlite state {path}: {exc.strerror}") from exc
