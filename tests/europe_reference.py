"""A second, independent reading of docs/rules-europe.md and docs/game-record.md (Europe, v1):
a replayer of full Europe records written from those pages only, plainly (sets, Counters), for
the line-by-line comparison with sy/europe/record.py. It reads the map from its CSV folder, not
from the generated module. Not used by the product.
"""
import csv
import json
import os
from collections import Counter

TRANSPORTS = ["car", "train", "plane"]
SYMBOLS = ["footprints", "silhouettes", "magnifier", "lamp"]
ALL_TICKETS = [t + "/" + s for t in TRANSPORTS for s in SYMBOLS]
LEVELS = ["green", "yellow", "orange"]
BACK = {3: 4, 4: 3, 5: 2}


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Map:
    def __init__(self, folder):
        def rows(name):
            with open(os.path.join(folder, name)) as f:
                return list(csv.DictReader(f))
        self.kind = {int(r["city"]): TRANSPORTS.index(r["kind"]) for r in rows("cities.csv")}
        self.lines = {}  # (city, transport) -> set of cities
        for r in rows("connections.csv"):
            a, b, t = int(r["a"]), int(r["b"]), TRANSPORTS.index(r["transport"])
            self.lines.setdefault((a, t), set()).add(b)
            self.lines.setdefault((b, t), set()).add(a)
        self.rings = {lv: [] for lv in LEVELS}
        self.dest = {}
        for r in rows("missions.csv"):
            if r["role"] == "ring":
                self.rings[r["level"]].append(int(r["city"]))
            else:
                self.dest[r["level"]] = int(r["city"])

    def exits(self, city, transport):
        """Cities reachable from city by transport, if the city's kind lets it leave that way."""
        if transport > self.kind[city]:
            return set()
        return self.lines.get((city, transport), set())


def transport_of(ticket):
    return TRANSPORTS.index(ticket.split("/")[0])


def symbol_of(ticket):
    return ticket.split("/")[1]


def whole(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Reference:
    def __init__(self, map_folder):
        self.map = Map(map_folder)
        self.setup_done = False
        self.n_line = 0
        self.end_line = None
        self.memo = {}
        self.result = self.reason = None
        self.round = 0

    # ---- the game -------------------------------------------------------------------------
    def start(self, o):
        m = self.map
        if o.get("game") != "europe" or o.get("version", 1) != 1 or o.get("map") != "europe_testmap":
            raise Refused("bad_input")
        if o.get("level") not in LEVELS:
            raise Refused("bad_input")
        det = o.get("detectives")
        if not isinstance(det, list) or not all(whole(c) for c in det):
            raise Refused("bad_input")
        players = o.get("players") or [1] * len(det)
        mrx = o.get("mrx")
        level = o["level"]
        if not 1 <= len(det) <= 5 or any(c not in m.kind for c in det) or len(set(det)) != len(det):
            raise Refused("bad_input")
        if sum(players) != len(det) or min(players) < 1 or not 1 <= len(players) <= 5:
            raise Refused("bad_input")
        if mrx not in m.rings[level] or mrx in det:
            raise Refused("bad_input")
        self.level = level
        self.pos = list(det)
        self.round_start = list(det)
        self.owner = []
        for p, k in enumerate(players):
            self.owner += [p + 1] * k
        self.size = [o.get("mrx_hand", 8)] + [4 + k for k in players]
        self.hands = [Counter() for _ in self.size]
        bag = o.get("bag")
        self.bag = Counter(bag) if bag else Counter({t: 10 for t in ALL_TICKETS})
        self.out = Counter()
        self.mrx = mrx
        self.log = [mrx]
        self.entries = [{"transport": None, "not": set(det), "pinned": None}]
        self.phase = "deal"
        self.drew = set()
        self.discarded = set()
        self.moved = set()
        self.special = False
        self.landed = set()
        self.round = 1
        self.setup_done = True

    def hand_of(self, name):
        if name == "X":
            return 0
        if isinstance(name, str) and name[:1] == "P" and name[1:].isdigit() and 1 <= int(name[1:]) < len(self.size):
            return int(name[1:])
        raise Refused("bad_input")

    def piece(self, name):
        if isinstance(name, str) and name[:1] == "D" and name[1:].isdigit() and 1 <= int(name[1:]) <= len(self.pos):
            return int(name[1:]) - 1
        raise Refused("bad_input")

    def tickets(self, v):
        if not isinstance(v, list) or not all(t in ALL_TICKETS for t in v):
            raise Refused("bad_input")
        return list(v)

    def city(self, v):
        if not whole(v) or v not in self.map.kind:
            raise Refused("bad_input")
        return v

    def over(self):
        if self.phase == "over":
            raise Refused("game_over")

    def finish(self, result, reason):
        self.result, self.reason, self.phase = result, reason, "over"

    def held(self, city):
        return city in self.pos

    def det_targets(self, i, transport):
        return {c for c in self.map.exits(self.pos[i], transport) if c != self.round_start[i] and not self.held(c)}

    def det_legal(self, i):
        if self.phase != "det" or self.special or i in self.moved:
            return []  # "after all moves" comes the operation: it ends them
        hand = self.hands[self.owner[i]]
        out = []
        for t in range(3):
            if any(hand[x] for x in ALL_TICKETS if transport_of(x) == t):
                out += [[c, TRANSPORTS[t]] for c in self.det_targets(i, t)]
        if out:  # "as many as possible": only moves after which the most detectives still move
            most = self.most_moves()
            out = [[c, t] for c, t in out if 1 + self.most_after(i, c, TRANSPORTS.index(t)) == most]
        return sorted(out, key=lambda e: (e[0], TRANSPORTS.index(e[1])))

    def tickets_by_transport(self):
        return tuple(sum(n for x, n in self.hands[h].items() if transport_of(x) == t)
                     for h in range(len(self.size)) for t in range(3))

    def most_moves(self):
        return self._most(frozenset(self.moved), tuple(self.pos), self.tickets_by_transport())

    def most_after(self, i, city, transport):
        pos = list(self.pos)
        pos[i] = city
        counts = list(self.tickets_by_transport())
        counts[3 * self.owner[i] + transport] -= 1
        return self._most(frozenset(self.moved | {i}), tuple(pos), tuple(counts))

    def _most(self, moved, pos, counts):
        """Every order, city and transport tried (remembered by state): the most moves left."""
        memo = self.memo
        key = (moved, pos, counts, tuple(self.round_start))
        if key not in memo:
            best = 0
            for i in range(len(pos)):
                if i in moved or best == len(pos) - len(moved):
                    continue
                for t in range(3):
                    h = 3 * self.owner[i] + t
                    if not counts[h]:
                        continue
                    for c in self.map.exits(pos[i], t):
                        if c == self.round_start[i] or c in pos:
                            continue
                        nxt = list(counts)
                        nxt[h] -= 1
                        best = max(best, 1 + self._most(moved | {i}, pos[:i] + (c,) + pos[i + 1:], tuple(nxt)))
            memo[key] = best
        return memo[key]

    def someone_can_move(self):
        return any(self.det_legal(i) for i in range(len(self.pos)))

    def mrx_legal(self, hand=None):
        hand = self.hands[0] if hand is None else hand
        out = []
        for ticket in ALL_TICKETS:
            if hand[ticket]:
                for c in self.map.exits(self.mrx, transport_of(ticket)):
                    if not self.held(c):
                        out.append([c, ALL_TICKETS.index(ticket), ticket])
        return sorted(out)

    def has(self, h, tickets):
        need = Counter(tickets)
        if any(self.hands[h][t] < n for t, n in need.items()):
            raise Refused("no_ticket")

    def free_exits(self, city):
        return [c for t in range(3) for c in self.map.exits(city, t) if not self.held(c)]

    def turn_begins(self):
        if not self.free_exits(self.mrx):
            self.finish("detectives", "mrx_stuck")

    # ---- lines ------------------------------------------------------------------------------
    def draw(self, h, tickets):
        self.over()
        if self.phase == "deal":
            pass
        elif self.phase == "mrx_refill":
            if h != 0:
                raise Refused("wrong_turn")
        elif self.phase in ("det", "det_refill"):
            if h == 0 or self.someone_can_move():
                raise Refused("wrong_turn")
        else:
            raise Refused("wrong_turn")
        if h in self.drew:
            raise Refused("already_moved")
        need = self.size[h] - sum(self.hands[h].values())
        in_bag = sum(self.bag.values())
        refill = need > in_bag
        expect = min(need, in_bag + (sum(self.out.values()) if refill else 0))
        if len(tickets) != expect:
            raise Refused("bad_draw")
        got = Counter(tickets)
        if refill:
            if any(got[t] < self.bag[t] or got[t] > self.bag[t] + self.out[t] for t in ALL_TICKETS):
                raise Refused("not_in_bag")
            self.bag += self.out
            self.out = Counter()
        elif any(got[t] > self.bag[t] for t in got):
            raise Refused("not_in_bag")
        self.bag -= got
        self.hands[h] += got
        self.drew.add(h)
        if self.phase == "deal" and len(self.drew) == len(self.size):
            self.phase, self.drew = "mrx", set()
            self.turn_begins()
        elif self.phase == "mrx_refill":
            self.phase, self.drew, self.discarded = "det", set(), set()
        elif self.phase == "det":
            self.phase = "det_refill"

    def discard(self, h, tickets):
        self.over()
        if self.phase == "mrx_refill":
            if h != 0:
                raise Refused("wrong_turn")
        elif self.phase in ("det", "det_refill"):
            if h == 0 or self.someone_can_move():
                raise Refused("wrong_turn")
        else:
            raise Refused("wrong_turn")
        if h in self.drew or h in self.discarded:
            raise Refused("already_moved")
        self.has(h, tickets)
        self.hands[h] -= Counter(tickets)
        self.bag += Counter(tickets)
        self.discarded.add(h)
        if self.phase == "det":
            self.phase = "det_refill"

    def mrx_turn(self, special, spend, moves):
        self.over()
        if self.phase != "mrx":
            raise Refused("wrong_turn")
        if special is None and (spend or len(moves) > 1):
            raise Refused("bad_special")
        if special is not None:
            symbol = "footprints" if special == "double" else "silhouettes"
            if len(spend) != 3 or any(symbol_of(t) != symbol for t in spend):
                raise Refused("bad_special")
            if len(moves) != (2 if special == "double" else 1):
                raise Refused("bad_special")
        self.has(0, spend + [mv[0] for mv in moves])
        if not moves and self.mrx_legal():
            raise Refused("must_move")
        here = self.mrx
        dest = self.map.dest[self.level]
        for n, (ticket, to) in enumerate(moves):
            t = transport_of(ticket)
            if t > self.map.kind[here]:
                raise Refused("kind")
            if to not in self.map.lines.get((here, t), set()):
                raise Refused("not_connected")
            if self.held(to):
                raise Refused("occupied")
            if to == dest and n < len(moves) - 1:
                raise Refused("bad_special")
            here = to
        self.hands[0] -= Counter(spend + [mv[0] for mv in moves])
        self.out += Counter(spend)
        # his turn went on: he was on no city without a free neighbour
        self.entries[-1]["not"] |= {c for c in self.map.kind if not self.free_exits(c)}
        for ticket, to in moves:
            self.mrx = to
            self.log.append(to)
            # had he been on his destination, the game would have ended
            self.entries.append({"transport": "any" if special == "covert" else transport_of(ticket),
                                 "not": set(self.pos) | ({dest} if to != dest else set()), "pinned": None})
            if to == dest:
                self.finish("mrx", "destination")
                return
        self.phase = "mrx_refill"

    def land(self, i, transport, to):
        if transport > self.map.kind[self.pos[i]]:
            raise Refused("kind")
        if to not in self.map.lines.get((self.pos[i], transport), set()):
            raise Refused("not_connected")
        if to == self.round_start[i]:
            raise Refused("returned")
        if self.held(to):
            raise Refused("occupied")

    def arrive(self, i, to):
        self.pos[i] = to
        self.landed.add(to)
        if to == self.mrx:
            self.finish("detectives", "capture")
        else:
            self.entries[-1]["not"].add(to)

    def move(self, i, ticket, to):
        self.over()
        if self.phase != "det":
            raise Refused("wrong_turn")
        if i in self.moved:
            raise Refused("already_moved")
        if self.special:
            raise Refused("wrong_turn")
        h = self.owner[i]
        self.has(h, [ticket])
        self.land(i, transport_of(ticket), to)
        if 1 + self.most_after(i, to, transport_of(ticket)) < self.most_moves():
            raise Refused("fewer_moves")
        self.hands[h][ticket] -= 1
        self.bag[ticket] += 1
        self.moved.add(i)
        self.arrive(i, to)

    def operation(self, spend, symbol):
        self.over()
        if self.phase != "det" or self.someone_can_move():
            raise Refused("wrong_turn")
        if self.special:
            raise Refused("special_used")
        if len(spend) not in BACK or any(symbol_of(t) != symbol for _h, t in spend):
            raise Refused("bad_special")
        for h in sorted({h for h, _t in spend}):
            self.has(h, [t for hh, t in spend if hh == h])

    def pay(self, spend):
        for h, t in spend:
            self.hands[h][t] -= 1
            self.out[t] += 1
        self.special = True

    def investigate(self, spend):
        self.operation(spend, "magnifier")
        entry = len(self.log) - 1 - BACK[len(spend)]
        if entry < 0:
            raise Refused("too_early")
        self.pay(spend)
        self.entries[entry]["pinned"] = self.log[entry]
        return {"reveal": {"entry": entry, "city": self.log[entry]}}

    def extra(self, i, spend, to):
        self.operation(spend, "lamp")
        self.land(i, len(spend) - 3, to)
        self.pay(spend)
        self.arrive(i, to)

    def check(self):
        self.over()
        if self.phase not in ("det", "det_refill") or self.someone_can_move():
            raise Refused("wrong_turn")
        if any(h not in self.drew for h in range(1, len(self.size))):
            raise Refused("wrong_turn")
        last = len(self.log) - 1
        window = range(max(0, last - 5), last)  # "the last five cities he has been in": not the current one
        shown = sorted({self.log[e] for e in window} & self.landed)
        for c in self.landed:
            self.entries[last]["not"].add(c)
            if c not in shown:
                for e in window:
                    self.entries[e]["not"].add(c)
        self.round += 1
        self.round_start = list(self.pos)
        self.moved, self.special, self.drew, self.discarded, self.landed = set(), False, set(), set(), set()
        self.phase = "mrx"
        self.turn_begins()
        return {"shown": shown}

    def showable(self):
        """The cities a position check now may show, as public information judges them: landed on
        this round, and possible at one of the five entries before his current one."""
        last = len(self.log) - 1
        could = set()
        for e in range(max(0, last - 5), last):
            could |= set(self.candidates(e))
        return could & self.landed

    def candidates(self, upto=None):
        e = self.entries[:None if upto is None else upto + 1]
        k = max([j for j in range(len(e)) if e[j]["pinned"]] or [0])
        now = {e[k]["pinned"]} if e[k]["pinned"] else set(self.map.rings[self.level])
        now -= e[k]["not"]
        for j in range(k + 1, len(e)):
            t = e[j]["transport"]
            nxt = set()
            for c in now:
                for tt in range(3):
                    if t == "any" or t == tt:
                        nxt |= self.map.exits(c, tt)
            now = nxt - e[j]["not"]
        return sorted(now)

    # ---- the record ------------------------------------------------------------------------
    def feed(self, text):
        self.n_line += 1
        was_over = self.result is not None
        try:
            out = self.apply(text)
        except Refused as r:
            return {"line": self.n_line, "ok": False, "error": r.code}
        if not was_over and self.result is not None:
            self.end_line = self.n_line
        verdict = {"line": self.n_line, "ok": True}
        verdict.update(out or {})
        return verdict

    def apply(self, text):
        try:
            o = json.loads(text)
        except ValueError:
            raise Refused("bad_input")
        if not isinstance(o, dict):
            raise Refused("bad_input")
        kind = o.get("type")
        if kind == "setup":
            if self.setup_done:
                raise Refused("bad_input")
            return self.start(o)
        if not self.setup_done:
            raise Refused("bad_input")
        if kind == "query":
            what = o.get("what")
            if what == "candidates":
                return {"candidates": self.candidates()}
            if what == "legal":
                if o.get("piece") == "X":
                    return {"legal": [[c, name] for c, _i, name in self.mrx_legal()]}
                return {"legal": self.det_legal(self.piece(o.get("piece")))}
            if what == "hands":
                return {"hands": {("X" if h == 0 else "P%d" % h): sorted(self.hands[h].elements())
                                  for h in range(len(self.size))}}
            raise Refused("bad_input")
        if kind in ("draw", "discard"):
            h = self.hand_of(o.get("hand"))
            tickets = self.tickets(o.get("tickets"))
            return self.draw(h, tickets) if kind == "draw" else self.discard(h, tickets)
        if kind == "mrx":
            special = o.get("special")
            if special not in (None, "double", "covert"):
                raise Refused("bad_input")
            spend = self.tickets(o["spend"]) if o.get("spend") is not None else []
            moves = o.get("moves")
            if not isinstance(moves, list) or not all(isinstance(mv, dict) for mv in moves):
                raise Refused("bad_input")
            steps = []
            for mv in moves:
                if mv.get("ticket") not in ALL_TICKETS:
                    raise Refused("bad_input")
                steps.append((mv["ticket"], self.city(mv.get("to"))))
            return self.mrx_turn(special, spend, steps)
        if kind == "move":
            i = self.piece(o.get("piece"))
            if o.get("ticket") not in ALL_TICKETS:
                raise Refused("bad_input")
            return self.move(i, o["ticket"], self.city(o.get("to")))
        if kind in ("investigate", "extra"):
            i = self.piece(o.get("piece")) if kind == "extra" else None
            sp = o.get("spend")
            if not isinstance(sp, dict):
                raise Refused("bad_input")
            spend = []
            for name in sorted(sp):
                h = self.hand_of(name)
                if h == 0:
                    raise Refused("bad_input")
                spend += [(h, t) for t in self.tickets(sp[name])]
            if kind == "investigate":
                return self.investigate(spend)
            return self.extra(i, spend, self.city(o.get("to")))
        if kind == "check":
            return self.check()
        raise Refused("bad_input")

    def final(self):
        if not self.setup_done or self.result is None:
            return {"result": None, "reason": None, "round": self.round, "line": self.n_line}
        return {"result": self.result, "reason": self.reason, "round": self.round, "line": self.end_line}
