"""Renderers: one per source type, detected in order Kustomize, Helm, plain files (with Jinja2)
(``detect.py``); ``start.py`` is the one start for all three, and imports only the renderer found."""
