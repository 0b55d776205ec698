"""The fleet engine: cluster inventory, prober, lifecycle state machine and what a transition writes."""
