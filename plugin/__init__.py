"""The config-management plugin (CMP v2 sidecar): render, rewrite, transform, guard, print."""
