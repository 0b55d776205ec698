"""An SPDX 2.3 SBOM of an image's Debian and Python packages, read from the OCI archive itself: the dpkg
status file the image keeps for scanners and every installed distribution's `*.dist-info/METADATA`.

Usage: python3 deploy/release/sbom.py IMAGE.oci.tar > IMAGE.spdx.json
The output is the same for the same image (times come from the image's own config).
"""

from __future__ import annotations

import email.parser
import gzip
import io
import json
import re
import sys
import tarfile
from typing import Any

DPKG_STATUS = "var/lib/dpkg/status"
METADATA = re.compile(r"(^|/)site-packages/[^/]+\.dist-info/METADATA$")


def _member(archive: tarfile.TarFile, name: str) -> bytes:
    handle = archive.extractfile(name)
    if handle is None:
        raise SystemExit(f"error: {name} is missing from the archive")
    return handle.read()


def _blob(archive: tarfile.TarFile, digest: str) -> bytes:
    return _member(archive, f"blobs/{digest.replace(':', '/', 1)}")


def _debian(status: str) -> list[dict[str, str]]:
    out = []
    for stanza in status.split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", stanza, flags=re.M))
        if fields.get("Package") and "installed" in fields.get("Status", "installed").split():
            out.append(
                {"name": fields["Package"], "version": fields["Version"], "arch": fields.get("Architecture", "")}
            )
    return out


def _python(text: str) -> dict[str, str]:
    meta = email.parser.Parser().parsestr(text, headersonly=True)
    return {"name": str(meta["Name"]), "version": str(meta["Version"]), "license": str(meta.get("License", "") or "")}


def read(path: str) -> tuple[str, dict[str, Any], list[dict[str, str]], list[dict[str, str]]]:
    """(manifest digest, image config, Debian packages, Python distributions) of an OCI archive."""
    with tarfile.open(path) as archive:
        index = json.loads(_member(archive, "index.json"))
        digest = index["manifests"][0]["digest"]
        manifest = json.loads(_blob(archive, digest))
        config = json.loads(_blob(archive, manifest["config"]["digest"]))
        debian: list[dict[str, str]] = []
        python: dict[str, dict[str, str]] = {}
        for layer in manifest["layers"]:
            with tarfile.open(fileobj=io.BytesIO(gzip.decompress(_blob(archive, layer["digest"])))) as files:
                for member in files:
                    name = member.name.removeprefix("./")
                    if not member.isfile():
                        continue
                    if name == DPKG_STATUS:
                        debian = _debian(_text(files, member))
                    elif METADATA.search(name):
                        dist = _python(_text(files, member))
                        python[dist["name"].lower()] = dist
    return digest, config, debian, sorted(python.values(), key=lambda d: d["name"].lower())


def _text(files: tarfile.TarFile, member: tarfile.TarInfo) -> str:
    handle = files.extractfile(member)
    assert handle is not None
    return handle.read().decode("utf-8", "replace")


def _pypi_name(name: str) -> str:
    """The package URL spelling: PEP 503's normal form (lower case, runs of `-_.` as one `-`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _spdx_id(kind: str, name: str) -> str:
    return f"SPDXRef-{kind}-" + re.sub(r"[^A-Za-z0-9.-]", "-", name)


def sbom(path: str, name: str = "argocd-lifecycle") -> dict[str, Any]:
    digest, config, debian, python = read(path)
    version = config.get("config", {}).get("Labels", {}).get("org.opencontainers.image.version", "")
    image_id = "SPDXRef-image"
    packages: list[dict[str, Any]] = [
        {
            "SPDXID": image_id,
            "name": name,
            "versionInfo": version,
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "checksums": [{"algorithm": "SHA256", "checksumValue": digest.removeprefix("sha256:")}],
            "primaryPackagePurpose": "CONTAINER",
        }
    ]
    for deb in debian:
        # package URLs carry a Debian epoch as a qualifier, the version without it
        epoch, _, bare = deb["version"].rpartition(":")
        qualifiers = "&".join(
            q for q in (f"arch={deb['arch']}" if deb["arch"] else "", f"epoch={epoch}" if epoch else "") if q
        )
        arch = f"?{qualifiers}" if qualifiers else ""
        packages.append(
            {
                "SPDXID": _spdx_id("deb", deb["name"]),
                "name": deb["name"],
                "versionInfo": deb["version"],
                "downloadLocation": "NOASSERTION",
                "filesAnalyzed": False,
                "externalRefs": [
                    {
                        "referenceCategory": "PACKAGE-MANAGER",
                        "referenceType": "purl",
                        "referenceLocator": f"pkg:deb/debian/{deb['name']}@{bare}{arch}",
                    }
                ],
            }
        )
    for dist in python:
        packages.append(
            {
                "SPDXID": _spdx_id("pypi", dist["name"]),
                "name": dist["name"],
                "versionInfo": dist["version"],
                "downloadLocation": "NOASSERTION",
                "filesAnalyzed": False,
                "externalRefs": [
                    {
                        "referenceCategory": "PACKAGE-MANAGER",
                        "referenceType": "purl",
                        "referenceLocator": f"pkg:pypi/{_pypi_name(dist['name'])}@{dist['version']}",
                    }
                ],
            }
        )
    relationships = [
        {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": image_id}
    ]
    relationships += [
        {"spdxElementId": image_id, "relationshipType": "CONTAINS", "relatedSpdxElement": p["SPDXID"]}
        for p in packages[1:]
    ]
    return {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{name}-{version}",
        "documentNamespace": f"https://argocd-lifecycle.example/spdx/{name}/{digest}",
        "creationInfo": {
            "created": config.get("created", "1970-01-01T00:00:00Z"),
            "creators": ["Tool: argocd-lifecycle-release"],
        },
        "packages": packages,
        "relationships": relationships,
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: sbom.py IMAGE.oci.tar")
    json.dump(sbom(sys.argv[1]), sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")
