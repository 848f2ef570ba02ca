"""The board's game flow: the Board (board: setup, move tracking, LED feedback, saving) and
the command handlers the protocol loads when a command first needs them (newgame, mrxturn, declare, undo,
status, report, verify, deadreed with blind, service)."""
