"""Read-only access to a compact Europe map module (host/europe/mapformat.py writes it).

The same layout as London's (sy/rules/mapgraph.py: ADJ, START, COUNTS) with three transports (car,
train, plane) of 5 bits each, plus each city's kind and the missions. A subclass, so the London
board neither loads nor pays for any of it.
"""
from sy.rules.mapgraph import MapGraph

CAR = 0
TRAIN = 1
PLANE = 2
TRANSPORT_NAMES = ("car", "train", "plane")
KIND_NAMES = ("car", "train", "plane")  # a city of kind k may be left by transports 0..k
LEVEL_NAMES = ("green", "yellow", "orange")
RINGS_PER_LEVEL = 5


class EuropeGraph(MapGraph):
    def __init__(self, data):
        super().__init__(data)
        self.kinds = data.KINDS
        self.rings = data.RINGS
        self.destinations = data.DESTINATIONS

    def span(self, s, transport):
        start = self._start
        counts = self._counts
        lo = start[2 * s] | (start[2 * s + 1] << 8)
        packed = counts[2 * s] | (counts[2 * s + 1] << 8)
        t = 0
        while t < transport:
            lo += (packed >> (5 * t)) & 31
            t += 1
        return lo, lo + ((packed >> (5 * transport)) & 31)

    def allows(self, city, transport):
        """May a piece leave `city` by `transport` (its kind)?"""
        return transport <= self.kinds[city]

    def ring_cities(self, level):
        return self.rings[RINGS_PER_LEVEL * level:RINGS_PER_LEVEL * (level + 1)]

    def destination(self, level):
        return self.destinations[level]


_loaded = {}


def load(name):
    """The EuropeGraph of a generated module sy.NAME (tools/gen_map.py --europe)."""
    graph = _loaded.get(name)
    if graph is None:
        from sy.rules.mapgraph import _is_module_name
        if not _is_module_name(name):
            raise ValueError("unknown map %r" % (name,))
        try:
            package = __import__("sy.maps." + name)
        except ImportError:
            raise ValueError("unknown map %r" % (name,))
        data = getattr(package.maps, name)
        if getattr(data, "GAME", None) != "europe":
            raise ValueError("%r is not a Europe map" % (name,))
        graph = _loaded[name] = EuropeGraph(data)
    return graph
