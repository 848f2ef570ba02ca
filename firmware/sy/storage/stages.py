"""The board's stages, one at a time: no game, the pieces being set up, the game in play, the game
over. Board.stage (sy/play/board.py) holds one and the snapshot's header saves it, so the numbers
are part of the saved format: they live here, below the board and the boot's resume
(sy/storage/resume.py), which both use them, and the link's handlers (sy/link/handlers.py)."""
IDLE = 0
SETUP = 1
PLAY = 2
OVER = 3
STAGE_NAMES = ("idle", "setup", "play", "over")  # as the protocol's status names them
