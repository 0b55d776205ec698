"""The application shell: the console script, the root command group and ``ensure-secret``. The top
layer: it may import core and every part, and nothing imports it (tests/unit/test_layers.py)."""
