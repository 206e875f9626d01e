"""``python -m validation.aps [--markdown PATH] [--failures-only]``: just the APS table."""

import sys

from ..run import main

raise SystemExit(main(["aps", *sys.argv[1:]]))
