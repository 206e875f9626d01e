"""A quiet Ctrl-C while the command line starts.

``predstab`` spends its first second importing numpy, pandas and scipy, before
:func:`predstab.cli.main` can catch anything; a Ctrl-C then would print a long traceback of
import machinery. This module, imported first by :mod:`predstab`, installs a SIGINT handler
that prints one line and exits with code 130, only when the program running is the
``predstab`` command (or ``python -m predstab``); ``main`` puts Python's own handler back
as soon as it can report an interruption itself (:func:`restore`). Imported as a library,
nothing changes.
"""

import os
import signal
import sys
import threading

__all__ = ["restore"]

_COMMANDS = ("predstab", "predstab.exe", "predstab-script.py", "-m")


def _quiet(signum, frame):  # pragma: no cover - runs in a subprocess (tests/surfaces)
    os.write(2, b"predstab: interrupted while starting; nothing was done\n")
    os._exit(130)


def _is_command():
    return bool(sys.argv) and os.path.basename(sys.argv[0]) in _COMMANDS


if _is_command() and threading.current_thread() is threading.main_thread() \
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _quiet)


def restore():
    """Python's own Ctrl-C (KeyboardInterrupt) again, if the quiet one is installed."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _quiet:
        signal.signal(signal.SIGINT, signal.default_int_handler)
