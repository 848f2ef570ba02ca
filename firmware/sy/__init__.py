"""Scotland Yard board: the code that ships to the board (also importable on the host)."""
