"""Computer players for Scotland Yard: Mister X and the detectives, four levels each (docs/ai.md).

Public API (everything else in host.ai is internal):

    make_mrx_agent(level="normal", seed=None, seconds=None, iterations=None, deadline=None)
        agent.choose(game) -> ("move", ticket, to) | ("double", ticket1, to1, ticket2, to2)
        `game` is the full sy.rules.game.Game (Mister X's station known), Mister X to move.
        Apply with game.mrx_move(ticket, to) / game.mrx_double(ticket1, to1, ticket2, to2).
        Every level but random keeps out of the pieces' reach when it can (host/ai/safety.py);
        every answer waits for the level's deadline (0: at once, for benches and tests).

    make_detective_agent(level="normal", seed=None, seconds=None, iterations=None, model="easy")
        agent.choose(view) -> (piece, ticket, to), one piece per call: the lowest-numbered piece
        that still has to move (view.to_move() != 0). `view` is public information only: a
        sy.rules.game.Game in secret mode (mrx == 0), e.g. public_view(game) or the board's own Game.
        The agent refuses a view that knows Mister X's station. For a bobby, `ticket` is the
        transport used (pass None to Game.move if you prefer: bobbies pay nothing). One agent per
        game: normal and hard follow its history (host/ai/belief.py).

    public_view(game) -> a secret-mode copy of game (no hidden station in it).
    play_game(mrx_agent, detective_agent, detectives, bobbies, mrx, record=False, **setup) -> dict

Mister X: "random" (no preferences, for tests and benches), "easy" (the balanced plan on hidden
moves, the greedy formula where he surfaces), "normal" (MCTS, 1 s a move on one core), "hard"
(MCTS, 4 s). Detectives: "random", "easy" (the heuristic over the public possible set), "normal"
(the heuristic over the posterior the computer Mister X's code implies), "hard" (MCTS drawing his
station from that posterior, 1 s a piece). `seconds` / `iterations` override a search's budget
(with `iterations` alone the agent is deterministic for a given seed).
Tickets are ints (sy.rules.game.TAXI, BUS, UNDERGROUND, BLACK); stations ints; pieces indices.
"""
from host.ai.agents import (LEVELS, SECONDS, make_mrx_agent, make_detective_agent, public_view,
                            play_game)

__all__ = ["LEVELS", "SECONDS", "make_mrx_agent", "make_detective_agent", "public_view",
           "play_game"]
