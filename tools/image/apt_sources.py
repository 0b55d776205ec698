"""Print the Debian archive entries apt is configured with for one suite (and its -updates/-security).

The image is made from the same archive the machine uses, so no archive address is written anywhere:
this reads /etc/apt/sources.list and /etc/apt/sources.list.d/*.list|*.sources, keeps the entries of
Debian's suites SUITE, SUITE-updates and SUITE-security, and prints them in deb822 form.
Usage: python3 tools/image/apt_sources.py SUITE
"""

from __future__ import annotations

import sys
from pathlib import Path

APT = Path("/etc/apt")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def one_line_entries(text: str) -> list[dict[str, str]]:
    out = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words or words[0] != "deb":
            continue
        words = words[1:]
        if words and words[0].startswith("["):  # options such as [arch=amd64 signed-by=...]
            while words and not words[0].endswith("]"):
                words.pop(0)
            words.pop(0)
        if len(words) >= 3:
            out.append({"Types": "deb", "URIs": words[0], "Suites": words[1], "Components": " ".join(words[2:])})
    return out


def deb822_entries(text: str) -> list[dict[str, str]]:
    out = []
    for stanza in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = ""
        for line in stanza.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            if line[0].isspace() and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key.strip()] = value.strip()
        if fields.get("Enabled", "yes") != "no" and "deb" in fields.get("Types", "").split():
            out.append(fields)
    return out


def main(suite: str) -> int:
    entries: list[dict[str, str]] = []
    if (APT / "sources.list").exists():
        entries += one_line_entries((APT / "sources.list").read_text())
    for path in sorted((APT / "sources.list.d").glob("*")):
        if path.suffix == ".list":
            entries += one_line_entries(path.read_text())
        elif path.suffix == ".sources":
            entries += deb822_entries(path.read_text())
    wanted = {suite, f"{suite}-updates", f"{suite}-security"}
    printed = 0
    for entry in entries:
        suites = [s for s in entry["Suites"].split() if s in wanted]
        components = [c for c in entry.get("Components", "").split() if c == "main"]
        if not suites or not components:
            continue
        for uri in entry["URIs"].split():
            print(f"Types: deb\nURIs: {uri}\nSuites: {' '.join(suites)}\nComponents: main\nSigned-By: {KEYRING}\n")
            printed += 1
    if not printed:
        print(f"error: apt has no entry for Debian {suite} (main) in {APT}/sources.list*", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: apt_sources.py SUITE", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
