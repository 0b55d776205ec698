"""The deprecated-API knowledge base, shared by the plugin (rewrites at render) and the generator (upgrade
preflight): ``knowledge`` holds the versioned table, its loader and lookups."""
