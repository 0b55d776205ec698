"""The fleet: cluster inventory, prober, lifecycle state machine and the plugin-generator service."""
