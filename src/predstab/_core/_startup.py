"""A quiet Ctrl-C while the command line starts.

``predstab`` spends its first second importing numpy, pandas and scipy, before
:func:`predstab.cli.main` can catch anything; a Ctrl-C then would print a long traceback of
import machinery. This module, imported first by :mod:`predstab` (before anything else of the
package, and importing only the built-in ``_signal``: no ``signal``, ``enum`` or
``threading``, whose imports would widen the window), installs a SIGINT handler that prints
one line and exits with code 130, only when the program running is the ``predstab`` command
(or ``python -m predstab``); ``main`` puts Python's own handler back as soon as it can
report an interruption itself (:func:`restore`). Imported as a library, nothing changes.

What it cannot cover is what runs before the package is imported: the interpreter's start-up
and its ``site`` module, then the console script's ``import re`` (pip writes that script) or
``runpy`` (``python -m``). A Ctrl-C there is Python's own traceback; measured in
docs/reliability.md.
"""

import _signal
import os
import sys

__all__ = ["restore"]

_COMMANDS = ("predstab", "predstab.exe", "predstab-script.py", "-m")


def _quiet(signum, frame):  # pragma: no cover - runs in a subprocess (tests/surfaces)
    os.write(2, b"predstab: interrupted while starting; nothing was done\n")
    os._exit(130)


def _is_command():
    return bool(sys.argv) and os.path.basename(sys.argv[0]) in _COMMANDS


def _install():
    if _is_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        try:
            _signal.signal(_signal.SIGINT, _quiet)
        except ValueError:  # not the main thread (imported by a thread): Python's own handler stays
            pass


def restore():
    """Python's own Ctrl-C (KeyboardInterrupt) again, if the quiet one is installed."""
    if _signal.getsignal(_signal.SIGINT) is _quiet:
        try:
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        except ValueError:  # not the main thread: it cannot change handlers (nor could it install one)
            pass


_install()
