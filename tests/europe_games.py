"""Random Europe games on the map made for the tests (tests/data/europe_testmap), written line by
line with tests/europe_reference.py judging each as it is written (a tenth of the lines are noise the
rules must refuse), and the public version of such a record (what the board keeps). The Europe
record tests, the MicroPython replay and the browser view play these."""
import json
import os
import random

from europe_reference import Reference, ALL_TICKETS, transport_of, symbol_of, TRANSPORTS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")
START_CARDS = [5, 9, 10, 14, 15, 16, 22, 23]


def mrx_moves(ref, here, hand):
    out = []
    for ticket in sorted(hand.elements()):
        for c in sorted(ref.map.exits(here, transport_of(ticket))):
            if c not in ref.pos:
                out.append((ticket, c))
    return out


def pick_tickets(rng, hand, symbol, n):
    pool = [t for t in sorted(hand.elements()) if symbol_of(t) == symbol]
    return rng.sample(pool, n) if len(pool) >= n else None


def draw_line(rng, ref, h):
    name = "X" if h == 0 else "P%d" % h
    need = ref.size[h] - sum(ref.hands[h].values())
    bag = sorted(ref.bag.elements())
    if need <= len(bag):
        got = rng.sample(bag, need)
    else:
        out = sorted(ref.out.elements())
        got = bag + rng.sample(out, min(need - len(bag), len(out)))
    return {"type": "draw", "hand": name, "tickets": got}


def mrx_line(rng, ref):
    hand = ref.hands[0].copy()
    dest = ref.map.dest[ref.level]
    roll = rng.random()
    if roll < 0.25:
        spend = pick_tickets(rng, hand, "footprints", 3)
        if spend:
            rest = hand - __import__("collections").Counter(spend)
            first = [m for m in mrx_moves(ref, ref.mrx, rest) if m[1] != dest]
            if first:
                t1, c1 = rng.choice(first)
                rest2 = rest - __import__("collections").Counter([t1])
                second = mrx_moves(ref, c1, rest2)
                if second:
                    t2, c2 = rng.choice(second)
                    return {"type": "mrx", "special": "double", "spend": spend,
                            "moves": [{"ticket": t1, "to": c1}, {"ticket": t2, "to": c2}]}
    if roll < 0.45:
        spend = pick_tickets(rng, hand, "silhouettes", 3)
        if spend:
            rest = hand - __import__("collections").Counter(spend)
            moves = mrx_moves(ref, ref.mrx, rest)
            if moves:
                t, c = rng.choice(moves)
                return {"type": "mrx", "special": "covert", "spend": spend, "moves": [{"ticket": t, "to": c}]}
    moves = mrx_moves(ref, ref.mrx, hand)
    if not moves:
        return {"type": "mrx", "moves": []}
    t, c = rng.choice(moves)
    return {"type": "mrx", "moves": [{"ticket": t, "to": c}]}


def pooled(ref, symbol):
    return [(h, t) for h in range(1, len(ref.size)) for t in sorted(ref.hands[h].elements()) if symbol_of(t) == symbol]


def spend_dict(pairs):
    out = {}
    for h, t in pairs:
        out.setdefault("P%d" % h, []).append(t)
    return out


def detective_line(rng, ref, state):
    """The detectives' next line, or None when their turn is done (the check was sent)."""
    if ref.special and ref.phase == "det" and not state.get("late_tried") and rng.random() < 0.5:
        state["late_tried"] = True  # a move after the operation, which ended the moves
        for i in rng.sample(range(len(ref.pos)), len(ref.pos)):
            for t in range(3):
                targets = sorted(ref.det_targets(i, t))
                tickets = [x for x in sorted(ref.hands[ref.owner[i]].elements()) if transport_of(x) == t]
                if targets and tickets and i not in ref.moved:
                    return {"type": "move", "piece": "D%d" % (i + 1), "ticket": tickets[0], "to": targets[0]}
    movable = [i for i in range(len(ref.pos)) if ref.det_legal(i)]
    if movable:
        i = rng.choice(movable)
        city, transport = rng.choice(ref.det_legal(i))
        tickets = [t for t in sorted(ref.hands[ref.owner[i]].elements()) if TRANSPORTS[transport_of(t)] == transport]
        return {"type": "move", "piece": "D%d" % (i + 1), "ticket": rng.choice(tickets), "to": city}
    if ref.phase == "det" and not ref.special and not state.get("op_tried"):
        state["op_tried"] = True
        roll = rng.random()
        mags, lamps = pooled(ref, "magnifier"), pooled(ref, "lamp")
        if roll < 0.35 and len(mags) >= 3:
            k = rng.randint(3, min(5, len(mags)))
            return {"type": "investigate", "spend": spend_dict(rng.sample(mags, k))}
        if roll < 0.7 and len(lamps) >= 3:
            k = rng.randint(3, min(5, len(lamps)))
            i = rng.randrange(len(ref.pos))
            targets = sorted(ref.det_targets(i, k - 3))
            if targets:
                return {"type": "extra", "piece": "D%d" % (i + 1), "spend": spend_dict(rng.sample(lamps, k)),
                        "to": rng.choice(targets)}
    for h in range(1, len(ref.size)):
        if h not in ref.drew:
            if h not in ref.discarded and rng.random() < 0.3 and sum(ref.hands[h].values()):
                hand = sorted(ref.hands[h].elements())
                return {"type": "discard", "hand": "P%d" % h, "tickets": rng.sample(hand, rng.randint(1, len(hand)))}
            return draw_line(rng, ref, h)
    return {"type": "check"}


def noise(rng, ref, good):
    """A line that may break a rule: a legal line with one field changed, or one out of turn."""
    bad = json.loads(json.dumps(good))
    roll = rng.random()
    if roll < 0.2:
        return rng.choice([{"type": "check"}, {"type": "mrx", "moves": []}, {"type": "draw", "hand": "P1", "tickets": []},
                           {"type": "move", "piece": "D1", "ticket": "car/lamp", "to": rng.randint(1, 30)},
                           {"type": "investigate", "spend": {"P1": ["car/magnifier"] * 3}}, {"type": "nonsense"},
                           {"type": "extra", "piece": "D2", "spend": {"P1": ["car/lamp"] * 3}, "to": rng.randint(0, 31)}])
    if bad.get("type") == "move" and rng.random() < 0.5:
        i = int(bad["piece"][1:]) - 1
        held = [c for c in sorted(ref.map.exits(ref.pos[i], transport_of(bad["ticket"]))) if c in ref.pos]
        if held:
            bad["to"] = rng.choice(held)  # onto another detective
            return bad
    if bad.get("type") == "mrx" and bad["moves"] and rng.random() < 0.3:
        held = [c for t in range(3) for c in sorted(ref.map.exits(ref.mrx, t)) if c in ref.pos]
        if held:
            bad["moves"][0]["to"] = rng.choice(held)  # onto a detective
            return bad
    if "to" in bad:
        bad["to"] = rng.randint(1, 31)
    elif bad.get("moves"):
        mv = rng.choice(bad["moves"])
        if rng.random() < 0.5:
            mv["to"] = rng.randint(1, 30)
        else:
            mv["ticket"] = rng.choice(ALL_TICKETS)
    if "ticket" in bad and rng.random() < 0.5:
        bad["ticket"] = rng.choice(ALL_TICKETS)
    if isinstance(bad.get("tickets"), list) and bad["tickets"] and rng.random() < 0.7:
        bad["tickets"][rng.randrange(len(bad["tickets"]))] = rng.choice(ALL_TICKETS)
    if "spend" in bad and rng.random() < 0.5:
        bad["spend"] = {"P1": [rng.choice(ALL_TICKETS) for _ in range(rng.randint(2, 6))]}
    if "piece" in bad and rng.random() < 0.3:
        bad["piece"] = "D%d" % rng.randint(1, 6)
    return bad


def random_record(seed, max_lines=500):
    """(lines) of a random game, judged as it is written by the reference."""
    rng = random.Random(seed)
    ref = Reference(TESTMAP)
    lines = []

    def emit(obj):
        text = json.dumps(obj)
        lines.append(text)
        return ref.feed(text)

    n = rng.choice([5, 5, 5, 4, 3, 2, 1])
    det = rng.sample(START_CARDS, n)
    players, left = [], n
    while left:
        k = rng.randint(1, left)
        players.append(k)
        left -= k
    level = rng.choice(["green", "yellow", "orange"])
    rings = [c for c in ref.map.rings[level] if c not in det]
    emit({"type": "setup", "game": "europe", "version": 1, "map": "europe_testmap", "level": level,
          "detectives": det, "players": players, "mrx": rng.choice(rings)})
    for h in rng.sample(range(len(ref.size)), len(ref.size)):
        emit(draw_line(rng, ref, h))
    state = {}
    while ref.result is None and len(lines) < max_lines:
        if rng.random() < 0.08:
            emit({"type": "query", "what": rng.choice(["candidates", "legal", "hands"]),
                  "piece": rng.choice(["X", "D1", "D2"])})
            continue
        if ref.phase == "mrx":
            state = {}
            good = mrx_line(rng, ref)
        elif ref.phase == "mrx_refill":
            if 0 not in ref.discarded and rng.random() < 0.3 and sum(ref.hands[0].values()):
                hand = sorted(ref.hands[0].elements())
                good = {"type": "discard", "hand": "X", "tickets": rng.sample(hand, rng.randint(1, len(hand)))}
            else:
                good = draw_line(rng, ref, 0)
        else:
            good = detective_line(rng, ref, state)
        if rng.random() < 0.1:
            emit(noise(rng, ref, good))
            continue
        verdict = emit(good)
        assert verdict["ok"] or verdict["error"] in ("too_early", "wrong_turn"), (verdict, good)
    return lines, ref


def public(lines):
    """The record as the board keeps it: no start, Mister X's hand as counts, his cities hidden;
    the host's answers (shown cities, captures) written in."""
    out, exact = [], []
    for _full, o, same in public_pairs(lines):
        if same is not None:
            exact.append(same)
        out.append(json.dumps(o))
    return out, exact


def public_pairs(lines, before=None):
    """(full line, its public line, exact) for each line the reference accepts; exact: for a
    candidates query, whether the board's set must equal the full one (None for other lines).
    `before(reference, line)` is called before the reference reads each line."""
    full = Reference(TESTMAP)
    for text in lines:
        o = json.loads(text)
        phase = full.phase if full.setup_done else None
        if before:
            before(full, o)
        v = full.feed(text)
        if not v["ok"]:
            continue
        kind = o.get("type")
        if kind == "setup":
            o["mrx"] = None
        elif kind in ("draw", "discard") and o["hand"] == "X":
            o = {"type": kind, "hand": "X", "count": len(o["tickets"])}
        elif kind == "mrx":
            dest = full.map.dest[full.level]
            for mv in o["moves"]:
                if mv["to"] != dest:
                    del mv["to"]
                if o.get("special") == "covert":
                    del mv["ticket"]
        elif kind == "investigate":
            o["city"] = v["reveal"]["city"]
        elif kind == "check":
            o["shown"] = v["shown"]
        elif kind in ("move", "extra") and full.reason == "capture" and full.end_line == full.n_line:
            o["capture"] = True
        elif kind == "query":
            if o.get("what") != "candidates":
                continue
            # the board learns of a landing on Mister X's city only at the check (or a declared
            # capture): in the detectives' turn its set may still hold the cities they landed on
            yield text, o, phase in ("mrx", "mrx_refill")
            continue
        yield text, o, None
