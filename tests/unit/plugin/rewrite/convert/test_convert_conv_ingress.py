"""Ingress to networking.k8s.io/v1 (plugin/rewrite/convert/conv_ingress.py); inputs are never mutated."""

from __future__ import annotations

from tests.unit.plugin.rewrite.helpers import convert, obj


def test_ingress_ports_and_paths() -> None:
    src = obj(
        "networking.k8s.io/v1beta1",
        "Ingress",
        metadata={"name": "x", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
        spec={
            "ingressClassName": "nginx",
            "backend": {"resource": {"apiGroup": "g", "kind": "K", "name": "n"}},
            "rules": [
                {"http": {"paths": [{"pathType": None, "backend": {"serviceName": "s", "servicePort": "8080"}}]}},
                {"host": "no-http.example.test"},
            ],
        },
    )
    out, rw = convert(src, (1, 22))
    spec = out["spec"]
    assert spec["defaultBackend"] == {"resource": {"apiGroup": "g", "kind": "K", "name": "n"}}
    path = spec["rules"][0]["http"]["paths"][0]
    # digits-only string ports become numbers: as a name they would be invalid
    assert path == {
        "pathType": "ImplementationSpecific",
        "backend": {"service": {"name": "s", "port": {"number": 8080}}},
    }
    assert spec["rules"][1] == {"host": "no-http.example.test"}
    assert rw.infos and not any("ingress.class" in i for i in rw.infos)  # class set explicitly: no advice
