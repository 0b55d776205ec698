"""Rollouts that know the fleet: a revision reaches clusters in waves (docs/guide/rollouts.md)."""
