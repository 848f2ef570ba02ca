"""board.json's problems in the maker's language.

The firmware's check (sy.hardware.boardconfig, which runs on MicroPython too, without gettext)
names the common problems with a `why` and string values; the host words them here. A problem
without a `why` keeps the firmware's English sentence.
"""
from host.i18n import N_, _

PROBLEMS = {  # ConfigError.why -> msgid, formatted with ConfigError.values
    "not_integer": N_("must be an integer, got %(got)s"),
    "out_of_range": N_("must be %(lo)s..%(hi)s, got %(got)s"),
    "not_number": N_("must be a number, got %(got)s"),
    # i18n: %(interval)s is a mathematical interval such as [0, 1] or (0, 5.5]
    "out_of_interval": N_("must be in %(interval)s, got %(got)s"),
    "not_bool": N_("must be true or false, got %(got)s"),
    "not_one_of": N_("must be one of %(choices)s, got %(got)s"),
    "not_object": N_("must be an object, got %(got)s"),
    "unknown_key": N_("unknown key (known: %(known)s)"),
    "not_json_object": N_("the config must be a JSON object, got %(got)s"),
    "version": N_("this firmware reads version %(version)s, the file has %(got)s"),
}


def explain(error):
    """The sentence for a boardconfig.ConfigError: "key: problem", the problem translated when
    the firmware named it."""
    why, values = getattr(error, "why", None), getattr(error, "values", None) or {}
    if why not in PROBLEMS:
        return str(error)
    problem = _(PROBLEMS[why]) % values
    return "%s: %s" % (error.key, problem) if error.key else problem
