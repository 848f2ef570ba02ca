"""The map format for Europe boards we do not ship (docs/map-format.md): read, check, render.

A map is a folder of CSV files plus a provenance note:
  cities.csv        city,x,y,kind          kind: car | train | plane (which transports may leave)
  connections.csv   a,b,transport          transport: car | train | plane
  missions.csv      level,role,city        level: green | yellow | orange; role: ring | destination
  start_cards.csv   city                   the detectives' start cards
  PROVENANCE.md     who transcribed which board from what, and how it was checked

`read_map(folder)` returns a EuropeMap or raises MapFormatError naming the file and the line.
`render_module(m, name)` is the compact module the board loads (sy/europe/graph.py reads it).
Used by tools/gen_map.py and by the host (yard sim --map, yard map-editor).
"""
import csv
import os

from host.i18n import _

TRANSPORTS = ("car", "train", "plane")
KINDS = ("car", "train", "plane")  # kind k allows TRANSPORTS[0..k]
LEVELS = ("green", "yellow", "orange")
ROLES = ("ring", "destination")
RINGS_PER_LEVEL = 5
MIN_START_CARDS = 5  # the box's five detectives each need one
MAX_CITIES = 255  # one byte per city in the compact module
BITS = 5  # neighbours per transport per city: at most 31
FILES = {
    "cities.csv": ("city", "x", "y", "kind"),
    "connections.csv": ("a", "b", "transport"),
    "missions.csv": ("level", "role", "city"),
    "start_cards.csv": ("city",),
}
PROVENANCE = "PROVENANCE.md"


def at_line(filename, line):
    return _("%(file)s line %(line)d") % {"file": filename, "line": line}


def word(name):
    """A kind, transport or level of the map format (car, train, plane, green...) in the player's
    language; the files keep the English word."""
    return _(name)


class MapFormatError(ValueError):
    """A map that breaks the format: `where` is 'file line N' (or the file), `problem` a sentence."""

    def __init__(self, where, problem):
        super().__init__(_("%(where)s: %(problem)s") % {"where": where, "problem": problem})
        self.where = where
        self.problem = problem


class EuropeMap:
    def __init__(self):
        self.cities = {}       # city -> (x, y, kind index)
        self.connections = []  # (a, b, transport index), a < b, in file order
        self.rings = {level: [] for level in LEVELS}
        self.destinations = {}  # level -> city
        self.start_cards = []
        self.provenance = ""
        self.warnings = []  # what the map allows but an owner should look at twice

    @property
    def n(self):
        return len(self.cities)

    def counts(self):
        by_transport = [0, 0, 0]
        for _a, _b, t in self.connections:
            by_transport[t] += 1
        kinds = [0, 0, 0]
        for _x, _y, k in self.cities.values():
            kinds[k] += 1
        return {"cities": self.n, "kinds": dict(zip(KINDS, kinds)),
                "connections": dict(zip(TRANSPORTS, by_transport)),
                "rings": sum(len(r) for r in self.rings.values()),
                "destinations": len(self.destinations), "start_cards": len(self.start_cards)}


def _rows(folder, filename):
    """(line number, row dict) of a CSV file whose header must be exactly the expected one."""
    path = os.path.join(folder, filename)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise MapFormatError(filename, _("missing (a map folder needs %s)") % ", ".join(FILES))
    except (OSError, UnicodeDecodeError) as e:
        raise MapFormatError(filename, _("cannot be read: %s") % e)
    reader = csv.reader(text.splitlines())
    try:
        return _checked_rows(reader, filename)
    except csv.Error as e:  # a field over csv's size limit, a NUL byte...
        raise MapFormatError(at_line(filename, reader.line_num), _("not a CSV row: %s") % e)


def _checked_rows(reader, filename):
    header = next(reader, None)
    expected = FILES[filename]
    if header is None or [h.strip() for h in header] != list(expected):
        raise MapFormatError(at_line(filename, 1), _("the header must be %s") % ",".join(expected))
    out = []
    for cells in reader:
        line = reader.line_num
        if not cells or all(not c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
            continue
        if len(cells) != len(expected):
            raise MapFormatError(at_line(filename, line),
                                 _("%(got)d fields, expected %(expected)d (%(header)s)")
                                 % {"got": len(cells), "expected": len(expected), "header": ",".join(expected)})
        out.append((line, {k: v.strip() for k, v in zip(expected, cells)}))
    return out


def _int(value, where, what):
    try:
        return int(value)
    except ValueError:
        raise MapFormatError(where, _("%(field)s %(value)r is not a whole number") % {"field": what, "value": value})


def _choice(value, options, where, what):
    if value not in options:
        raise MapFormatError(where, _("%(field)s %(value)r is not one of %(options)s")
                             % {"field": what, "value": value, "options": ", ".join(options)})
    return options.index(value)


def read_map(folder, whole=True):
    """Read and check a map folder. Every problem names its file and line. whole=False skips the
    checks that need a finished map (the digitizer opens a transcription in progress)."""
    m = EuropeMap()
    if not os.path.isdir(folder):
        raise MapFormatError(folder, _("not a folder"))
    for line, r in _rows(folder, "cities.csv"):
        where = at_line("cities.csv", line)
        city = _int(r["city"], where, "city")
        if not 1 <= city <= MAX_CITIES:
            raise MapFormatError(where, _("city %(city)d is not in 1..%(last)d") % {"city": city, "last": MAX_CITIES})
        if city in m.cities:
            raise MapFormatError(where, _("city %d is listed twice") % city)
        try:
            x, y = float(r["x"]), float(r["y"])
        except ValueError:
            raise MapFormatError(where, _("x and y must be numbers (pixels of the picture)"))
        if x < 0 or y < 0:
            raise MapFormatError(where, _("x and y are pixels of the picture: not negative"))
        m.cities[city] = (x, y, _choice(r["kind"], KINDS, where, "kind"))
    if not m.cities and whole:
        raise MapFormatError("cities.csv", _("no cities"))
    missing = [c for c in range(1, max(m.cities or [0]) + 1) if c not in m.cities]
    if missing and whole:
        raise MapFormatError("cities.csv", _("cities must be numbered 1..N without gaps: missing %s")
                             % ", ".join(map(str, missing[:10])))
    seen = {}
    for line, r in _rows(folder, "connections.csv"):
        where = at_line("connections.csv", line)
        a = _int(r["a"], where, "a")
        b = _int(r["b"], where, "b")
        t = _choice(r["transport"], TRANSPORTS, where, "transport")
        for c in (a, b):
            if c not in m.cities:
                raise MapFormatError(where, _("city %d is not in cities.csv") % c)
        if a == b:
            raise MapFormatError(where, _("a connection joins two different cities"))
        key = (min(a, b), max(a, b), t)
        if key in seen:
            raise MapFormatError(where, _("%(a)d-%(b)d by %(transport)s is already on line %(line)d")
                                 % {"a": key[0], "b": key[1], "transport": word(r["transport"]), "line": seen[key]})
        seen[key] = line
        # the rulebook limits only leaving a city («можно уехать»): a line may lead into a city its
        # kind forbids leaving by (one way), but a line neither end may be left by is of no use
        closed = [c for c in (a, b) if t > m.cities[c][2]]
        if len(closed) == 2:
            raise MapFormatError(where, _("city %(a)d is a %(a_kind)s city and city %(b)d a %(b_kind)s city: neither "
                                          "may be left by %(transport)s, so no one could travel this line")
                                 % {"a": a, "a_kind": word(KINDS[m.cities[a][2]]), "b": b,
                                    "b_kind": word(KINDS[m.cities[b][2]]), "transport": word(TRANSPORTS[t])})
        if closed:
            c = closed[0]
            m.warnings.append(_("%(where)s: city %(city)d is a %(kind)s city: the %(transport)s line from %(other)d "
                                "leads into it, but no one can leave it by %(transport)s (one way; check the "
                                "transcription)") % {"where": where, "city": c, "kind": word(KINDS[m.cities[c][2]]),
                                                      "transport": word(TRANSPORTS[t]), "other": a + b - c})
        m.connections.append(key)
    for line, r in _rows(folder, "missions.csv"):
        where = at_line("missions.csv", line)
        level = LEVELS[_choice(r["level"], LEVELS, where, "level")]
        role = _choice(r["role"], ROLES, where, "role")
        city = _int(r["city"], where, "city")
        if city not in m.cities:
            raise MapFormatError(where, _("city %d is not in cities.csv") % city)
        if role == 0:
            if city in m.rings[level]:
                raise MapFormatError(where, _("city %(city)d is already a %(level)s ring") % {"city": city, "level": word(level)})
            if len(m.rings[level]) == RINGS_PER_LEVEL and whole:
                raise MapFormatError(where, _("a level has %(count)d ringed start cities; %(level)s has more")
                                     % {"count": RINGS_PER_LEVEL, "level": word(level)})
            m.rings[level].append(city)
        else:
            if level in m.destinations:
                raise MapFormatError(where, _("the %(level)s mission already has destination %(city)d")
                                     % {"level": word(level), "city": m.destinations[level]})
            m.destinations[level] = city
    for line, r in _rows(folder, "start_cards.csv"):
        where = at_line("start_cards.csv", line)
        city = _int(r["city"], where, "city")
        if city not in m.cities:
            raise MapFormatError(where, _("city %d is not in cities.csv") % city)
        if city in m.start_cards:
            raise MapFormatError(where, _("start card %d is listed twice") % city)
        m.start_cards.append(city)
    try:
        with open(os.path.join(folder, PROVENANCE), encoding="utf-8") as f:
            m.provenance = f.read()
    except OSError:
        if whole:
            raise MapFormatError(PROVENANCE, _("missing: say who transcribed which board, from what, and how it was "
                                               "checked"))
    if whole and not m.provenance.strip():
        raise MapFormatError(PROVENANCE, _("empty: say who transcribed which board, from what, and how it was checked"))
    if whole:
        check_whole(m)
    return m


def check_whole(m):
    """The checks that need the whole map: missions complete, start cards, every city reachable."""
    for level in LEVELS:
        if len(m.rings[level]) != RINGS_PER_LEVEL:
            raise MapFormatError("missions.csv", _("the %(level)s mission has %(count)d ringed start cities, needs "
                                                   "%(needs)d") % {"level": word(level), "count": len(m.rings[level]),
                                                                   "needs": RINGS_PER_LEVEL})
        if level not in m.destinations:
            raise MapFormatError("missions.csv", _("the %s mission has no destination") % word(level))
        if m.destinations[level] in m.rings[level]:
            raise MapFormatError("missions.csv", _("the %(level)s destination %(city)d is also one of its start rings")
                                 % {"level": word(level), "city": m.destinations[level]})
    if len(m.start_cards) < MIN_START_CARDS:
        raise MapFormatError("start_cards.csv", _("%(count)d start cards; the five detectives need at least %(needs)d")
                             % {"count": len(m.start_cards), "needs": MIN_START_CARDS})
    neighbours = {c: set() for c in m.cities}
    for a, b, t in m.connections:
        neighbours[a].add(b)
        neighbours[b].add(a)
    lonely = sorted(c for c, ns in neighbours.items() if not ns)
    if lonely:
        raise MapFormatError("connections.csv", _("cities without any connection: %s") % ", ".join(map(str, lonely[:20])))
    exits = {a for a, b, t in m.connections if t <= m.cities[a][2]} | {b for a, b, t in m.connections if t <= m.cities[b][2]}
    stuck = sorted(set(m.cities) - exits)
    if stuck:
        raise MapFormatError("connections.csv", _("cities no one could leave (no line of a transport their kind "
                                                  "allows): %s") % ", ".join(map(str, stuck[:20])))
    reached = {1}
    todo = [1]
    while todo:
        for n in neighbours[todo.pop()]:
            if n not in reached:
                reached.add(n)
                todo.append(n)
    if len(reached) != m.n:
        cut = sorted(set(m.cities) - reached)
        raise MapFormatError("connections.csv", _("not every city can be reached from city 1: %s cannot")
                             % ", ".join(map(str, cut[:20])))


def tables(m):
    """ADJ, START, COUNTS of the compact module: as for London, 3 transports, 5 bits each."""
    neigh = {c: [[] for _ in TRANSPORTS] for c in range(m.n + 1)}
    for a, b, t in m.connections:
        neigh[a][t].append(b)
        neigh[b][t].append(a)
    adj, start, counts = bytearray(), bytearray(), bytearray()
    for c in range(m.n + 1):
        start += len(adj).to_bytes(2, "little")
        packed = 0
        for t in range(len(TRANSPORTS)):
            group = sorted(neigh[c][t])
            if len(group) >= 1 << BITS:
                raise MapFormatError("connections.csv", _("city %(city)d has %(count)d %(transport)s lines; at most "
                                                          "%(most)d") % {"city": c, "count": len(group),
                                                                         "transport": word(TRANSPORTS[t]),
                                                                         "most": (1 << BITS) - 1})
            packed |= len(group) << (BITS * t)
            adj += bytes(group)
        counts += packed.to_bytes(2, "little")
    return bytes(adj), bytes(start), bytes(counts)


def render_module(m, name, source):
    """The text of the compact map module (firmware/sy/NAME.py) for sy/europe/graph.py."""
    adj, start, counts = tables(m)
    kinds = bytes([0] + [m.cities[c][2] for c in range(1, m.n + 1)])
    rings = bytes(c for level in LEVELS for c in m.rings[level])
    dests = bytes(m.destinations[level] for level in LEVELS)
    return "\n".join([
        '"""Europe map %r, generated by tools/gen_map.py from %s -- do not edit."""' % (name, source),
        "# %d cities, %d connections; %d bytes of adjacency data." % (m.n, len(m.connections), len(adj) + len(start) + len(counts)),
        "GAME = 'europe'",
        "NAME = %r" % name,
        "STATIONS = %d" % m.n,
        "ADJ = %r" % adj,
        "START = %r" % start,
        "COUNTS = %r" % counts,
        "KINDS = %r" % kinds,
        "RINGS = %r" % rings,
        "DESTINATIONS = %r" % dests,
        "D_CARDS = %r" % bytes(sorted(m.start_cards)),
        "X_CARDS = b''",
        "",
    ])


def load_graph(folder, name=None):
    """A EuropeGraph straight from a map folder (the host: yard sim --map, yard replay --map)."""
    from sy.europe.graph import EuropeGraph
    m = read_map(folder)
    name = name or os.path.basename(os.path.normpath(folder))
    namespace = {}
    exec(render_module(m, name, folder), namespace)

    class Data:
        pass
    data = Data()
    for key, value in namespace.items():
        if key.isupper():
            setattr(data, key, value)
    return EuropeGraph(data)


def write_map(m, folder):
    """Write a EuropeMap as a map folder (the digitizer's save). Rows in a canonical order."""
    os.makedirs(folder, exist_ok=True)

    def write(filename, rows):
        with open(os.path.join(folder, filename), "w", newline="", encoding="utf-8") as f:
            f.write(",".join(FILES[filename]) + "\n")
            for row in rows:
                f.write(",".join(str(v) for v in row) + "\n")

    def num(v):
        return int(v) if float(v).is_integer() else v
    write("cities.csv", [(c, num(x), num(y), KINDS[k]) for c, (x, y, k) in sorted(m.cities.items())])
    write("connections.csv", [(a, b, TRANSPORTS[t]) for a, b, t in sorted(m.connections, key=lambda e: (e[2], e[0], e[1]))])
    write("missions.csv", [(level, "ring", c) for level in LEVELS for c in sorted(m.rings[level])]
          + [(level, "destination", m.destinations[level]) for level in LEVELS if level in m.destinations])
    write("start_cards.csv", [(c,) for c in sorted(m.start_cards)])
    with open(os.path.join(folder, PROVENANCE), "w", encoding="utf-8") as f:
        f.write(m.provenance)
