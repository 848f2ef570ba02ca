"""Mister X - Flight through Europe on the host: the map format (mapformat) and its digitizer
(map_editor), the bag, a game as the host keeps it (match), computer players (agents), the demo on
the simulated board (sim), the detectives' browser view (view) and the record replay (replay)."""
