"""The transport: websockets in, frames out, on websockets' sans-I/O API."""
