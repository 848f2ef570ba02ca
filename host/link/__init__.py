"""The host's end of the board link: the protocol client (boardlink) and finding the board's
serial port (ports)."""
