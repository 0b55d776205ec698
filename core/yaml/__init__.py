"""YAML as Kubernetes reads it: the bounded loader, the writer and the config-file loader
(``yamlio.py``), and Kubernetes' own scalar semantics (``kube_yaml.py``, checked by tools/go/yamlcheck)."""
