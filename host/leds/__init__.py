"""What the board's LEDs show, seen from the host: colour distances for colour-blind players."""
