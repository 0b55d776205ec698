"""The Argo CD Notifications catalog: triggers and templates rendered from the Jinja2 sources here."""
