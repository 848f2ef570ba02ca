"""The board's game flow: the Board (board: setup, move tracking, LED feedback, saving) and what
the host's commands make of it, loaded when first needed (newgame, mrxturn, declare, undo, status,
report, verify, deadreed with blind). Nothing here knows the wire: the link's handlers
(sy/link/handlers.py) read the commands and call these."""
