"""Power-cut-safe storage of the game (store) and its reading back at boot (resume)."""
