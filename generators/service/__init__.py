"""The ApplicationSet plugin-generator HTTP service: it serves a FleetView (generators/fleet/view.py)."""
