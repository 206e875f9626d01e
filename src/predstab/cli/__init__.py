"""The ``predstab`` command line: ``demo``, ``tune``, ``stability``, ``agree``, ``compare``,
``power``.

Every command is a thin layer over the library: it reads files, calls one public function,
prints the result and writes outputs atomically (never replacing a file without
``--force``). Every input problem is reported as one line on stderr with exit code 2;
``--help`` on each command ends with a worked example.

The package: :mod:`~predstab.cli._parser` builds the parser from the commands that
:mod:`~predstab.cli._tuning` (demo, tune), :mod:`~predstab.cli._measures` (stability, agree)
and :mod:`~predstab.cli._compare` (compare, power) declare, with the option types and shared
options of :mod:`~predstab.cli._options`; :mod:`~predstab.cli._inputs` reads what the options
name; :mod:`~predstab.cli._terminal` runs a command and owns what the terminal sees (stdout,
one-line errors and warnings, exit codes, signals).

Examples
--------
>>> main(["--version"])  # doctest: +ELLIPSIS
predstab ...
0
"""

from __future__ import annotations

from ._parser import build_parser
from ._terminal import main

__all__ = ["main", "build_parser"]
