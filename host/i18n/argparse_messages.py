"""argparse's own words (usage, the error frame, its refusals of bad arguments) in our catalog.
argparse looks up `_` and `ngettext` among its module's names at each call, so pointing them at
ours translates it without .mo files on disk for the `argparse` domain."""
import argparse

from host import i18n
from host.i18n import N_, N_n

# the messages a player can meet (argparse's programming errors are left out)
MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("can't open '%(filename)s': %(error)s"),
    N_n("expected %s argument", "expected %s arguments"),
)


def install():
    argparse._ = i18n._
    argparse.ngettext = i18n.ngettext
