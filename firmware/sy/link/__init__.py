"""The link to the host: serial bytes to lines (lines), the line protocol's dispatcher (proto,
docs/protocol.md) and what its command handlers share (fields)."""
