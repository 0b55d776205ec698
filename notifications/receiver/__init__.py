"""The alert receiver: verify, de-duplicate, silence, collapse storms, route and deliver."""
