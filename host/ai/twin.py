"""A move played on the referee Game and on its public twin.

Every runner of a game between computer players keeps two rules.Games in step: the referee (Mister
X's station known: it sees a capture) and its public twin, a Game in secret mode (mrx == 0) that
holds what the detectives may know, as the board's own Game does. play_game, the bench, the leak
attacker and the take-back probing all play their moves through here. It imports nothing (it calls
the Games' own methods), so that every host/ai module can use it without an import cycle."""


def play_mrx_action(ref, pub, action):
    """Mister X's chosen action played on the full game `ref` and on its public twin `pub`, which
    sees a leg's station only where he surfaces. Returns what each leg showed (a station or 0)."""
    if action[0] == "move":
        _k, t, to = action
        shown = to if (ref.moves + 1) in ref.reveals else 0
        ref.mrx_move(t, to)
        pub.mrx_move(t, shown)
        return (shown,)
    _k, t1, to1, t2, to2 = action
    shown1 = to1 if (ref.moves + 1) in ref.reveals else 0
    shown2 = to2 if (ref.moves + 2) in ref.reveals else 0
    ref.mrx_double(t1, to1, t2, to2)
    pub.mrx_double(t1, shown1, t2, shown2)
    return shown1, shown2


def play_detective_move(ref, pub, piece, ticket, to):
    """A detective's or bobby's move (a bobby pays no ticket) played on the full game `ref` and,
    unless it ended the game there (a capture only the referee sees), on its public twin `pub`."""
    ticket = None if ref.is_bobby(piece) else ticket
    ref.move(piece, ticket, to)
    if ref.result is None:
        pub.move(piece, ticket, to)
