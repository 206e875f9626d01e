"""``python -m validation [SUITE ...] [--markdown PATH] [--failures-only]``."""

from .run import main

raise SystemExit(main())
