"""The plugin's commands: the `plugin` group Argo CD's sidecar runs (generate, discover, parameters,
config, sidecar-values) and `scan`/`convert`."""
