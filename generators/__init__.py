"""The generators part: ``fleet/`` (inventory, prober, lifecycle, writers) and ``service/`` (the plugin
generator's HTTP service, which reads the fleet only through fleet/view.py); ``cli.py``, ``settings.py``
and ``runner.py`` wire both into ``generator serve``."""
