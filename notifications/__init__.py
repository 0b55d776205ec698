"""Notifications: the trigger/template catalog, the webhook receiver and the timeline."""
