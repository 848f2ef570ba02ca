"""`yard replay` for Europe records: the map by module name, or from a map folder (--map)."""
from host.errors import UserError
from host.i18n import _
from sy.europe import record as europe_record


def europe_verdicts(lines, map_folder=None):
    load = None
    if map_folder:
        from host.europe.mapformat import MapFormatError, load_graph
        try:
            graph = load_graph(map_folder)
        except MapFormatError as e:
            raise UserError(_("the map %(folder)s: %(problem)s") % {"folder": map_folder, "problem": e})

        def load(_name):
            return graph
    return _worded(europe_record.replay(lines, load))


def _worded(verdicts):
    """The rules' verdicts with a refusal worded for a person beside its codes, as London's
    (host/misterx/record.py): the rules send codes only (host/refusals.py)."""
    from host import refusals
    for v in verdicts:
        if v.get("ok") is False:
            v["message"] = refusals.of_reply(v)
        yield v
