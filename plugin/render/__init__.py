"""Renderers: one per source type, detected in order Kustomize, Helm, plain files (with Jinja2)."""
