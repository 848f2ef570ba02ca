"""The scripted game driver: a whole game on a simulated board (SimBoard, or the emulated Pico's
PicoBoard) through a BoardLink, Mister X's truth kept by the rules core on the host. Used by
`yard bench firmware|pico`, the reliability suite and the tests."""

TICKETS = ("taxi", "bus", "underground", "black")


def _mrx_second(truth, s1, t1):
    g = truth.graph
    for t in (0, 1, 2):
        if truth.supply[t] - (1 if t == t1 else 0) <= 0:
            continue
        for s in g.neighbours(s1, t):
            if truth.holder_of(s) < 0:
                return s, t
    if truth.black - (1 if t1 == 3 else 0) > 0:
        for s in g.all_neighbours(s1):
            if truth.holder_of(s) < 0:
                return s, 3
    return None


def detective_move(truth, rng, capture_round=0):
    """The scripted players' next move in the detectives' turn: (piece, station, ticket, ambiguous).
    The first piece that still has to move; from round capture_round on (if given) onto Mister X
    when it can, else a random legal move, not onto him where it has another; ambiguous: the
    station is reached by more than one of the piece's tickets (the board asks which)."""
    mask = truth.to_move()
    p = 0
    while not mask & (1 << p):
        p += 1
    moves = truth.legal(p)
    hits = [m for m in moves if m[0] == truth.mrx]
    if capture_round and truth.round >= capture_round and hits:
        s, t = hits[0]
    else:
        legal = [m for m in moves if m[0] != truth.mrx] or moves
        s, t = legal[rng.randrange(len(legal))]
    ambiguous = not truth.is_bobby(p) and sum(1 for m in moves if m[0] == s) > 1
    return p, s, t, ambiguous


def play_game(sim, link, detectives=(13, 26, 29, 34, 50), bobbies=(), mrx=45, seed=7, capture_round=0,
              on_step=None, timeout=5.0, commit=False, dead=(), key=None):
    """Play a whole game on a SimBoard through a BoardLink, as Mister X's host and the players'
    hands would: Mister X's truth is a full-knowledge Game here (the board never sees it). Uses a
    black ticket in round 2, double moves in rounds 5 and 12, the ticket buttons (and the host's
    choose command, alternately) for ambiguous placements. on_step(kind, info) is called at key
    moments (tests check LED frames there). commit=True sends salted commitments with setup and
    every move and reveals them after the game (the status then has `verified`, and `salts`).
    dead: the stations whose reed is out of service: a piece put there is confirmed by the confirm
    button, as the players are told. key: the game's key (bytes): the link then tags Mister X's
    lines (docs/fairplay.md). Returns the board's final status."""
    import random
    from sy.rules import commit as commitlib
    from sy.rules.game import Game
    rng = random.Random(seed)
    truth = Game(list(detectives), list(bobbies), mrx)
    salts = []

    def sealed(station):
        salt = "%032x" % rng.getrandbits(128)
        salts.append([salt, station])
        return commitlib.commitment(station, salt)

    extra = {"commit": sealed(mrx)} if commit else {}
    if key is not None:
        extra["key"] = key.hex()
    link.request("setup", detectives=list(detectives), bobbies=list(bobbies), replace=True, **extra)
    for s in list(detectives) + list(bobbies):
        sim.place(s, settle=False)
    link.wait_event("ready", timeout=timeout)
    if on_step:
        on_step("ready", None)
    choose_by_host = False
    gap = (sim.config["debounce_ms"] + 15) / 1000
    while truth.result is None:
        opts = truth.legal_mrx()
        s1, t1 = opts[rng.randrange(len(opts))]
        rnd = truth.round + 1
        if rnd == 2 and truth.black:
            s1, t1 = next(((s, t) for s, t in opts if t == 3), (s1, t1))
        second = _mrx_second(truth, s1, t1) if rnd in (5, 12) and truth.double else None
        if second:
            s2, t2 = second
            first = truth.moves + 1
            reveal = truth.mrx_double(t1, s1, t2, s2)
            d = [{"ticket": TICKETS[t1]}, {"ticket": TICKETS[t2]}]
            if commit:
                d[0]["commit"] = sealed(s1)
                d[1]["commit"] = sealed(s2)
            if first in truth.reveals:
                d[0]["to"] = s1
            if first + 1 in truth.reveals:
                d[1]["to"] = s2
            r = link.request("mrx", double=d, timeout=timeout)
        else:
            reveal = truth.mrx_move(t1, s1)
            args = {"ticket": TICKETS[t1]}
            if commit:
                args["commit"] = sealed(s1)
            if reveal:
                args["to"] = s1
            r = link.request("mrx", timeout=timeout, **args)
        assert r["reveal"] == reveal, (r, reveal)
        if on_step:
            on_step("mrx", {"reveal": reveal, "double": bool(second), "round": truth.round})
        while truth.phase == 1 and truth.result is None:
            p, s, t, ambiguous = detective_move(truth, rng, capture_round)
            bobby = truth.is_bobby(p)
            name = truth.piece_name(p)
            sim.lift(truth.pos[p], settle=False)
            sim.pause(gap)
            sim.place(s, settle=False)
            if s in dead:  # the board cannot see it: the confirm button puts it there
                sim.pause(gap)
                sim.press("confirm")
            if ambiguous:
                link.wait_note("choose", timeout=timeout)
                if on_step:
                    on_step("choose", {"piece": name, "station": s})
                if choose_by_host:
                    link.request("choose", ticket=TICKETS[t], timeout=timeout)
                else:
                    sim.press(TICKETS[t])
                choose_by_host = not choose_by_host
            seq, ev = link.wait_event("move", timeout=timeout, pred=lambda e: e.get("piece") == name)
            assert ev["to"] == s and (bobby or ev["ticket"] == TICKETS[t]), (ev, s, t)
            truth.move(p, None if bobby else t, s)
            if on_step:
                on_step("move", {"piece": name, "station": s, "ticket": None if bobby else TICKETS[t]})
            if truth.reason == "capture" and not ev.get("capture"):
                link.request("capture", piece=name, timeout=timeout, **({"reveal": salts[-1]} if commit else {}))
    st = link.request("status", timeout=timeout)
    if truth.reason == "mrx_stuck" and st["result"] is None:
        # the start or the detectives' last move left him no move (the full-knowledge game ended
        # it); the board, which knows only his possible stations, is told, with the proof
        link.request("cornered", timeout=timeout, **({"reveal": salts[-1]} if commit else {}))
        st = link.request("status", timeout=timeout)
    assert st["result"] == truth.result, (st["result"], truth.result)
    if commit:
        st["verified"] = link.reveal(salts[0], salts[1:], timeout=timeout)["verified"]
    st["truth_log"] = [[TICKETS[t], s] for t, s in truth.log]
    st["truth_start"] = mrx
    st["salts"] = salts  # [[salt, station], ...]: start, then every move (commit=True)
    return st
