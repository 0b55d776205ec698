"""The converters, one module per group of (old apiVersion, kind), and the registry that loads and
chains them."""
