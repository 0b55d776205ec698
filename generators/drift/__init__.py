"""Drift attribution against live clusters: reading an Application's objects with the prober's
credentials, the ``drift`` command, and the generator's drift watch."""
