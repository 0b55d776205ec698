"""A small OCI image archive, shaped like `make image`'s (index.json, one manifest, gzip layers), for the
release tests that must not wait for a real image build."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

DPKG_STATUS = """Package: libc6
Status: install ok installed
Architecture: amd64
Version: 2.36-9+deb12u14

Package: python3.11-minimal
Status: install ok installed
Architecture: amd64
Version: 3.11.2-6+deb12u6

Package: gone
Status: deinstall ok config-files
Architecture: amd64
Version: 1.0
"""
METADATA = "Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nLicense: MIT\n\n"
DISTS = {"PyYAML": "6.0.2", "argocd-lifecycle": "0.1.0"}


def _tar(files: dict[str, str]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_archive(path: Path, version: str = "0.1.0") -> str:
    """Write the archive; returns its manifest digest."""
    site = "opt/argocd-lifecycle/lib/python3.11/site-packages"
    layers = [
        gzip.compress(_tar({"var/lib/dpkg/status": DPKG_STATUS}), mtime=0),
        gzip.compress(
            _tar({f"{site}/{n}-{v}.dist-info/METADATA": METADATA.format(name=n, version=v) for n, v in DISTS.items()}),
            mtime=0,
        ),
    ]
    config = json.dumps(
        {
            "created": "2026-12-02T00:00:00Z",
            "architecture": "amd64",
            "os": "linux",
            "config": {"Labels": {"org.opencontainers.image.version": version}},
            "rootfs": {"type": "layers", "diff_ids": [_digest(gzip.decompress(x)) for x in layers]},
        }
    ).encode()
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": _digest(config),
                "size": len(config),
            },
            "layers": [
                {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": _digest(x), "size": len(x)}
                for x in layers
            ],
        }
    ).encode()
    index = {
        "schemaVersion": 2,
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": _digest(manifest),
                "size": len(manifest),
                "annotations": {"org.opencontainers.image.ref.name": version},
            }
        ],
    }
    files = {
        "oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
        "index.json": json.dumps(index).encode(),
    }
    for blob in (config, manifest, *layers):
        files[f"blobs/sha256/{_digest(blob).removeprefix('sha256:')}"] = blob
    with tarfile.open(path, "w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return _digest(manifest)
