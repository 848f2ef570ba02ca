import sys

from host.i18n.catalogs import main

sys.exit(main(sys.argv[1:]))
