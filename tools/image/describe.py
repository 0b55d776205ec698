"""Describe an OCI archive as JSON: manifest digest, uncompressed and compressed size, layers, config.

Usage: python3 tools/image/describe.py IMAGE.oci.tar [--json OUT.json]
   (prints the digest and sizes; the whole description goes to OUT.json, or to stdout without it)
"""

from __future__ import annotations

import hashlib
import json
import sys
import tarfile
import zlib
from typing import Any

CHUNK = 1 << 20


def blob(archive: tarfile.TarFile, digest: str) -> bytes:
    member = archive.extractfile(f"blobs/{digest.replace(':', '/', 1)}")
    if member is None:
        raise SystemExit(f"error: {digest} is missing from the archive")
    return member.read()


def uncompressed(archive: tarfile.TarFile, digest: str) -> tuple[int, str]:
    """Size and sha256 (the diff id) of a gzip layer, streamed."""
    member = archive.extractfile(f"blobs/{digest.replace(':', '/', 1)}")
    assert member is not None
    inflate = zlib.decompressobj(wbits=31)
    size, sha = 0, hashlib.sha256()
    while chunk := member.read(CHUNK):
        data = inflate.decompress(chunk)
        size += len(data)
        sha.update(data)
    data = inflate.flush()
    size += len(data)
    sha.update(data)
    return size, f"sha256:{sha.hexdigest()}"


def describe(path: str) -> dict[str, Any]:
    with tarfile.open(path) as archive:
        index = json.loads(archive.extractfile("index.json").read())  # type: ignore[union-attr]
        (entry,) = index["manifests"]
        manifest = json.loads(blob(archive, entry["digest"]))
        config = json.loads(blob(archive, manifest["config"]["digest"]))
        layers = []
        for layer, diff_id in zip(manifest["layers"], config["rootfs"]["diff_ids"], strict=True):
            size, digest = uncompressed(archive, layer["digest"])
            if digest != diff_id:
                raise SystemExit(f"error: layer {layer['digest']} does not match its diff id {diff_id}")
            layers.append({"digest": layer["digest"], "compressed": layer["size"], "size": size})
    history = [h.get("created_by", "") for h in config.get("history", []) if not h.get("empty_layer")]
    for layer, created_by in zip(layers, history, strict=False):
        layer["created_by"] = created_by
    return {
        "digest": entry["digest"],
        "tag": entry.get("annotations", {}).get("org.opencontainers.image.ref.name", ""),
        "size": sum(layer["size"] for layer in layers),
        "compressed": sum(layer["compressed"] for layer in layers),
        "layers": layers,
        "config": config["config"],
        "created": config.get("created"),
    }


def main(argv: list[str]) -> int:
    description = describe(argv[0])
    if len(argv) == 3 and argv[1] == "--json":
        with open(argv[2], "w") as out:
            json.dump(description, out, indent=2)
            out.write("\n")
        size, compressed = description["size"], description["compressed"]
        print(f"digest {description['digest']}")
        print(f"size {size} bytes uncompressed ({size / 1e6:.1f} MB), {compressed / 1e6:.1f} MB compressed")
        for layer in description["layers"]:
            print(f"  layer {layer['size'] / 1e6:7.1f} MB  {layer['created_by']}")
    else:
        print(json.dumps(description, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
