"""Computer players for a Europe game (the demo, and a partner for people): simple and honest.

Mister X heads for his destination, keeps away from the detectives, and uses a double move when a
detective is next to him, a covert move now and then. The detectives close in on his possible
cities (public information only), investigate when the possible cities are many, and take an
extra move when it lands on a possible city. Neither looks at what it may not know.
"""

from sy.europe.board import pay_choice
from sy.europe.rules import KINDS, ticket_name, FOOTPRINTS, SILHOUETTES, MAGNIFIER, LAMP


def distances(graph):
    """All-pairs move counts (any transport a city's kind allows)."""
    n = graph.stations
    out = {}
    for src in range(1, n + 1):
        dist = {src: 0}
        todo = [src]
        for here in todo:
            for t in range(3):
                if graph.allows(here, t):
                    for c in graph.neighbours(here, t):
                        if c not in dist:
                            dist[c] = dist[here] + 1
                            todo.append(c)
        out[src] = dist
    return out


class MrxAgent:
    def __init__(self, graph, rng):
        self.graph = graph
        self.rng = rng
        self.dist = distances(graph)

    def _danger(self, g, city):
        return min(self.dist[d].get(city, 99) for d in g.pos)

    def _score(self, g, city):
        if city == g.graph.destination(g.level):
            return 1000
        danger = self._danger(g, city)
        return 3 * min(danger, 3) - self.dist[city].get(g.graph.destination(g.level), 99) + self.rng.random()

    def turn(self, g):
        """Mister X's mrx line (full record) for game g (which knows him)."""
        hand = list(g.hands[0])
        moves = g.legal_mrx()
        if not moves:
            return {"type": "mrx", "moves": []}
        here_danger = self._danger(g, g.mrx)
        if here_danger <= 1 and hand_count(hand, FOOTPRINTS) >= 3:
            line = self._double(g, hand)
            if line:
                return line
        if hand_count(hand, SILHOUETTES) >= 3 and self.rng.random() < 0.4:
            spend = take(hand, SILHOUETTES, 3)
            left = minus(hand, spend)
            options = g.legal_mrx(left)
            if options:
                city, t = max(options, key=lambda o: self._score(g, o[0]))
                return {"type": "mrx", "special": "covert", "spend": names(spend), "moves": [{"ticket": ticket_name(t), "to": city}]}
        city, t = max(moves, key=lambda o: self._score(g, o[0]))
        return {"type": "mrx", "moves": [{"ticket": ticket_name(t), "to": city}]}

    def _double(self, g, hand):
        spend = take(hand, FOOTPRINTS, 3)
        left = minus(hand, spend)
        best = None
        dest = g.graph.destination(g.level)
        for c1, t1 in g.legal_mrx(left):
            if c1 == dest:
                continue
            left2 = minus(left, [t1])
            for c2, t2 in g.legal_mrx(left2, c1):
                score = self._score(g, c2)
                if best is None or score > best[0]:
                    best = (score, c1, t1, c2, t2)
        if best is None:
            return None
        _s, c1, t1, c2, t2 = best
        return {"type": "mrx", "special": "double", "spend": names(spend),
                "moves": [{"ticket": ticket_name(t1), "to": c1}, {"ticket": ticket_name(t2), "to": c2}]}

    def discard(self, g):
        """Tickets he puts back: the lamps and magnifiers beyond two (only the detectives use them)."""
        hand = list(g.hands[0])
        out = []
        for t in range(KINDS):
            if t & 3 in (MAGNIFIER, LAMP):
                out += [t] * hand[t]
        return names(out[2:])


class DetectiveAgent:
    def __init__(self, graph, rng):
        self.graph = graph
        self.rng = rng
        self.dist = distances(graph)

    def move(self, g):
        """(piece, city, ticket) of the next detective move, or None when none can move."""
        possible = g.candidates()
        best = None
        for i in range(g.n):
            for city, transport in g.legal(i):
                d = min([self.dist[city].get(c, 99) for c in possible] or [0])
                score = (d, self.rng.random())
                if best is None or score < best[0]:
                    best = (score, i, city, transport)
        if best is None:
            return None
        _s, i, city, transport = best
        return i, city, pay_choice(g.hands[g.owner[i]], transport)

    def operation(self, g):
        """An investigate or extra line (full record), or None."""
        possible = g.candidates()
        mags = pooled(g, MAGNIFIER)
        for k in (5, 4, 3):
            back = {3: 4, 4: 3, 5: 2}[k]
            if len(mags) >= k and g.moves - back >= 0 and len(possible) > 2:
                return {"type": "investigate", "spend": spend_dict(g, mags[:k])}
        lamps = pooled(g, LAMP)
        for k in (5, 4, 3):
            if len(lamps) >= k:
                for i in range(g.n):
                    out = []
                    g._targets(i, k - 3, out)
                    for city, _t in out:
                        if city in possible:
                            return {"type": "extra", "piece": "D%d" % (i + 1), "spend": spend_dict(g, lamps[:k]), "to": city}
        return None

    def discard(self, g, h):
        """Footprints and silhouettes: only Mister X can use their actions."""
        hand = g.hands[h]
        return names([t for t in range(KINDS) if t & 3 in (FOOTPRINTS, SILHOUETTES) for _ in range(hand[t])])


def hand_count(hand, symbol):
    return sum(hand[t] for t in range(KINDS) if t & 3 == symbol)


def take(hand, symbol, n):
    out = []
    for t in range(KINDS):
        if t & 3 == symbol:
            out += [t] * hand[t]
    return out[:n]


def minus(hand, tickets):
    left = bytearray(hand)
    for t in tickets:
        left[t] -= 1
    return left


def names(tickets):
    return [ticket_name(t) for t in tickets]


def pooled(g, symbol):
    return [(h, t) for h in range(1, len(g.hand_size)) for t in range(KINDS) if t & 3 == symbol for _ in range(g.hands[h][t])]


def spend_dict(g, pairs):
    out = {}
    for h, t in pairs:
        out.setdefault(g.hand_name(h), []).append(ticket_name(t))
    return out


