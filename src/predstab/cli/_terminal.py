"""What the terminal sees of a run: the result on stdout; warnings, notes and errors as one
line each on stderr; the exit code; and a quiet stop on Ctrl-C, SIGTERM, SIGHUP or a closed
pipe, with no partial output left behind."""

from __future__ import annotations

import shlex
import sys
import warnings

from .._core._reading import InputError, InputNote
from .._core._startup import restore
from .._core._writing import COMMITTED, signals_as_interrupts
from ._inputs import READER_WORDS, check_header_files, in_cli_words, one_line
from ._parser import EXIT_USAGE, build_parser

__all__ = ["main"]

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what the shell reports for `yes | head`


def _silence(stream):
    """Point ``stream``'s file descriptor at /dev/null so the interpreter's final flush of the
    broken pipe raises nothing (the recipe of Python's signal documentation)."""
    import os

    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv=None, *, stdout=None) -> int:
    """Run ``predstab`` with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Exit codes: 0 success, 2 bad input or usage (one line on stderr), 1 unexpected error,
    130 interrupted, 128 + N ended by signal N (SIGTERM: 143); no partial output is left behind.
    """
    out = sys.stdout if stdout is None else stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version / usage errors
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return 0
    prog = f"predstab {args.command}"
    # what report.html says produced it, and the warnings it shows
    args.command_line = shlex.join(["predstab", *(sys.argv[1:] if argv is None else argv)])
    args.warnings_seen = []

    def show(message, category, filename, lineno, file=None, line=None):
        kind = "note" if issubclass(category, InputNote) else "warning"
        print(f"{prog}: {kind}: {one_line(message)}", file=sys.stderr)
        args.warnings_seen.append(f"{kind}: {one_line(message)}")

    committed = len(COMMITTED)
    with warnings.catch_warnings(), signals_as_interrupts():
        warnings.simplefilter("default")
        warnings.showwarning = show
        try:
            restore()  # from here on, a Ctrl-C is reported below (before: one line by _startup)
            check_header_files(args)
            with in_cli_words(**READER_WORDS):  # the reader's advice as options (per file)
                code = int(args.func(args, out) or 0)
            out.flush()  # a closed pipe shows up here, not at interpreter exit
            return code
        except BrokenPipeError:
            # `predstab ... | head`: the reader has gone; stop quietly, as Unix tools do
            _silence(out)
            return EXIT_BROKEN_PIPE
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (signals_as_interrupts)
            signum = getattr(exc, "signum", None)
            how = "interrupted" if signum is None else f"terminated ({exc})"
            if len(COMMITTED) > committed:  # the signal came while the outputs were moved in: held back
                print(f"{prog}: {how} after its output was written in full to "
                      f"{', '.join(map(str, COMMITTED[committed:]))}", file=sys.stderr)
            else:
                print(f"{prog}: {how}; no partial output was written", file=sys.stderr)
            return EXIT_INTERRUPTED if signum is None else 128 + signum
        except (InputError, ValueError, TypeError, FileNotFoundError, PermissionError) as exc:
            if args.debug:
                raise
            print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        except Exception as exc:  # a bug: still one line, with a way to see the traceback
            if args.debug:
                raise
            print(f"{prog}: internal error: {type(exc).__name__}: {one_line(exc)} "
                  "(rerun with --debug for the traceback)", file=sys.stderr)
            return 1
