"""Starts the real upstream components of the end-to-end loop on loopback (used by pytest and the demo)."""
