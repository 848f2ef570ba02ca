"""Mister X - Flight through Europe (docs/europe-board.md): a board the London one never loads."""
