"""Mister X's side of the table: his secret game and its commitments (secretgame), his console,
the board-side view that tells the board only public facts (boardside), the computer seats
(computer), where secrets get their randomness (randomness), and the game-record reader (record)."""
