"""The board's game flow: the Board (board: setup, move tracking, LED feedback, saving) and
the command handlers the protocol loads for one command (newgame, mrxturn, declare, undo,
status, report, verify, deadreed with blind, service)."""
