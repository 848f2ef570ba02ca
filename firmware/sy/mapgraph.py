"""Read-only access to a compact map module (see tools/gen_map.py for the layout).

The rules never name a map: they ask a MapGraph, so another board is another data module.
"""
TAXI = 0
BUS = 1
UNDERGROUND = 2
FERRY = 3
TRANSPORT_NAMES = ("taxi", "bus", "underground", "ferry")
_SHIFT = (0, 3, 6, 9)
_MASK = (7, 7, 7, 3)


class MapGraph:
    def __init__(self, data):
        self.name = data.NAME
        self.stations = data.STATIONS
        self.adj = data.ADJ
        self._start = data.START
        self._counts = data.COUNTS
        self.d_cards = data.D_CARDS
        self.x_cards = data.X_CARDS

    def is_station(self, s):
        return isinstance(s, int) and 1 <= s <= self.stations

    def span(self, s, transport):
        """(lo, hi): the neighbours of s by transport are adj[lo:hi]. Allocates only the tuple."""
        start = self._start
        counts = self._counts
        lo = start[2 * s] | (start[2 * s + 1] << 8)
        packed = counts[2 * s] | (counts[2 * s + 1] << 8)
        t = 0
        while t < transport:
            lo += (packed >> _SHIFT[t]) & _MASK[t]
            t += 1
        return lo, lo + ((packed >> _SHIFT[transport]) & _MASK[transport])

    def neighbours(self, s, transport):
        lo, hi = self.span(s, transport)
        return self.adj[lo:hi]

    def connected(self, a, b, transport):
        lo, hi = self.span(a, transport)
        adj = self.adj
        for i in range(lo, hi):
            if adj[i] == b:
                return True
        return False

    def all_neighbours(self, s):
        """Every neighbour of s by any transport (ferry included), with repeats."""
        start = self._start
        lo = start[2 * s] | (start[2 * s + 1] << 8)
        hi = start[2 * s + 2] | (start[2 * s + 3] << 8) if s < self.stations else len(self.adj)
        return self.adj[lo:hi]


_loaded = {}


def load(name="london"):
    """The MapGraph of a generated map module by name ('london', 'london1983')."""
    graph = _loaded.get(name)
    if graph is None:
        if name == "london":
            from sy import london as data
        elif name == "london1983":
            from sy import london1983 as data
        else:
            raise ValueError("unknown map %r" % name)
        graph = _loaded[name] = MapGraph(data)
    return graph
