"""Drift attribution: who changed which fields of a live object after Argo CD's last sync (pure)."""
