"""The HTTP side of the port: health, metrics, the API and the browser's files."""
