"""The engine on files, for `scan` and `convert`: sources, text kept where only apiVersion changes,
in-place writes."""
