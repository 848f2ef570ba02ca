"""The rules of Scotland Yard (docs/rules.md): pure, no I/O, the same on the board and the host.

base (what every part shares: tickets, phases, RuleError) at the bottom; game (the Game) on top,
handing parts of its work to gamestart, mrxmoves, mrxknown, takeback and savedgame, which import
base, never game. mapgraph reads a map module (sy.maps); commit: Mister X's commitments."""
