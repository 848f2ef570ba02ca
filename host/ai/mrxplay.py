"""Mister X's chosen action played on the full game and on its public twin.

Every runner that keeps a referee Game (his station known) beside the Game the detectives see
(secret mode, mrx == 0) plays his choice through here: play_game, the bench, the leak attacker and
the take-back probing. It imports nothing (it calls the two Games' own methods), so that every
host/ai module can use it without an import cycle."""


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
