"""Deprecated and removed Kubernetes APIs: the knowledge base, target selection, converters, engine.

``knowledge`` loads the versioned table (``plugin/data/deprecations.yaml``) and users' extra rules,
``target`` decides what an object should become for the target cluster, ``registry`` holds one small
pure converter per (old apiVersion, kind), ``engine`` runs them, and ``transform`` plugs the engine
into the plugin pipeline. ``scan`` and ``convert`` (``plugin/scan_cli.py``) reuse the same pieces.
"""
