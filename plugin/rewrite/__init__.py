"""Deprecated and removed Kubernetes APIs: the knowledge base, target selection, converters, engine.

The knowledge base (the versioned table and users' extra rules) lives in core, in
``argocd_lifecycle.deprecations.knowledge``, as the generator's upgrade preflight reads it too;
``target`` decides what an object should become for the target cluster, ``registry`` holds one small
pure converter per (old apiVersion, kind), ``policy`` says what may happen to removed APIs, and
``engine`` runs it all; ``plugin/transforms/rewrite_apis.py`` plugs the engine into the plugin
pipeline, and ``scan`` and ``convert`` (``plugin/commands/scan.py``) reuse the same pieces.
"""
