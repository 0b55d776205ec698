"""The HTTP pieces both services (the plugin-generator service and the receiver) are built from."""
