"""What every command does with its inputs: read files as the options say, warn about options
the chosen variant ignores, turn what the library cannot compute into one-line errors."""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from pathlib import Path

import numpy as np

from .._core._exceptions import warn_outside
from .._core._gate import described_as
from .._core._reading import InputError, column, label_matrix, numeric_matrix, parse_list, read_table
from .._core._writing import report_beside, write_report, write_text

__all__ = ["reading", "check_header_files", "read_values", "named", "warn_ignored", "as_data_type",
           "categories_option", "write_csv", "one_line", "beyond_reach", "report_context", "Recorder",
           "write_cli_report", "reword", "in_cli_words", "READER_WORDS"]


def _same_file(a, b) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def reading(args, path=None) -> dict:
    """How ``args`` says to read the CSV file ``path``: :func:`predstab.read_table`'s keywords
    (``--header`` / ``--no-header`` for every file, ``--header-in`` / ``--no-header-in FILE`` for
    one file, which wins; ``--sep``, ``--dec``)."""
    header = args.header
    if path is not None:
        per_file = ((True, getattr(args, "header_in", [])), (False, getattr(args, "no_header_in", [])))
        for given, files in per_file:
            if any(_same_file(path, f) for f in files):
                header = given
    return {"header": header, "sep": args.sep, "dec": args.dec}


def check_header_files(args):
    """Each file of ``--header-in`` / ``--no-header-in`` is one the command reads, named once."""
    import os

    named_files = [v for v in vars(args).values() if isinstance(v, str) and os.path.isfile(v)]
    header_in, no_header_in = getattr(args, "header_in", []), getattr(args, "no_header_in", [])
    for option, files in (("--header-in", header_in), ("--no-header-in", no_header_in)):
        for f in files:
            if not any(_same_file(f, v) for v in named_files):
                raise InputError(f"{option} '{f}' names none of the files this command reads "
                                 f"({', '.join(repr(v) for v in named_files) or 'none'})")
            if option == "--header-in" and any(_same_file(f, g) for g in no_header_in):
                raise InputError(f"'{f}' is given to both --header-in and --no-header-in")


def read_values(path, *, what, scale, col=None, header=None, sep=None, dec=None, transpose=False,
                with_labels=False, one_column=False):
    """The values of a file as an array (objects in rows); with ``with_labels`` also the
    objects' labels: the file's row names (R's ``write.csv``), or 0-based row positions.
    ``one_column``: the file should hold one column (or ``col`` names it); two unnamed columns
    are refused (see :func:`_refuse_two_unnamed`). ``scale`` "metric" reads numbers, any other
    scale labels."""
    import pandas as pd

    frame = read_table(path, what=what, header=header, sep=sep, dec=dec)
    if col is not None:
        frame = column(frame, col, what=what).to_frame()
    elif one_column:
        _refuse_two_unnamed(frame, path, what)
    values = numeric_matrix(frame, what=what) if scale == "metric" else label_matrix(frame)
    labels = frame.columns if transpose else frame.index
    if isinstance(labels, pd.RangeIndex) or (transpose and not named(frame.columns)):
        labels = np.arange(len(labels))
    values = values.T if transpose else values
    return (values, np.asarray(labels)) if with_labels else values


def _refuse_two_unnamed(frame, path, what):
    """Where one column is expected, a headerless file of two columns is refused: every line
    ``d,d`` is far more often one column of decimal commas (``1,5``, which pandas and a comma
    separator read as 1 and 5) than two columns of responses, so neither guess is made."""
    if frame.shape[1] != 2 or named(frame.columns) or "lines" not in frame.attrs:
        return
    line = int(frame.attrs["lines"][0])
    text = ""
    if os.path.isfile(path):  # standard input and pipes cannot be read twice
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            text = next((raw for n, raw in enumerate(handle, 1) if n == line), "").strip()
    shown = text if len(text) <= 40 else text[:37] + "..."
    raise InputError(f"{what} file '{path}', line {line}: two columns without names ('{shown}') where one "
                     "column is expected; decimal commas (1,5)? Read the files with --sep ';' --dec ',' "
                     "(R's read.csv2); or name the column to use with --column V1 or --column V2")


def named(columns) -> bool:
    """False for the V1..Vk names given to the columns of a headerless file."""
    return list(map(str, columns)) != [f"V{j + 1}" for j in range(len(columns))]


def warn_ignored(args, selector, used_by):
    """Warn about options given (not at their default) that the chosen ``selector`` ignores.

    ``used_by`` maps an option's dest to the selector values that use it; the defaults are the
    parser's (``args.option_defaults``)."""
    chosen = getattr(args, selector)
    for dest, users in used_by.items():
        if chosen in users:
            continue
        if getattr(args, dest, None) != args.option_defaults.get(dest):
            flag = "--" + dest.replace("_", "-")
            warn_outside(f"{flag} is only used with --{selector} {' / '.join(users)}; it is ignored with "
                         f"--{selector} {chosen}", UserWarning)


def categories_option(args):
    """``--categories A,B,C`` as a list (None when not given)."""
    return parse_list(args.categories, option="--categories") if args.categories else None


def as_data_type(categories, values):
    """``categories`` (text from the command line) as the type of the labels read from a file:
    whole numbers, numbers, or text."""
    flat = [v for v in values.ravel() if v is not None]
    if flat and all(isinstance(v, (int, np.integer)) for v in flat):
        return parse_list(",".join(categories), option="--categories", convert=int)
    if flat and all(isinstance(v, (float, np.floating, int, np.integer)) for v in flat):
        return parse_list(",".join(categories), option="--categories", convert=float)
    return categories


def write_csv(args, frame, out, result=None):
    """Write ``frame`` to ``--out`` (if given) as CSV at full precision and say so; with the
    ``result`` shown, its report beside it (:func:`write_cli_report`)."""
    if args.out:
        print(f"wrote {write_text(args.out, frame.to_csv(index=False), force=args.force)}", file=out)
        if result is not None:
            write_cli_report(args, result, out)


class Recorder:
    """A command's stdout, passed through and remembered (what report.html shows as printed)."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    @property
    def text(self) -> str:
        return "".join(self.parts)


def write_cli_report(args, result, out, *, reading=(), draw=True):
    """``NAME.report.html`` beside ``--out NAME.csv``: the result (with its figure when ``draw``),
    what the command printed (``out``, a :class:`Recorder`), the command and versions."""
    context = report_context(args)
    path = report_beside(args.out)
    text = out.text if isinstance(out, Recorder) else ""
    written = write_report(path, title=f"predstab {args.command}: {Path(args.out).name}",
                           command=context["command"], text=text, results=[(result, draw)],
                           reading=reading, warnings=context["warnings"], files=[str(args.out)],
                           force=args.force)
    print(f"wrote {written}", file=out)


def one_line(message) -> str:
    """``message`` on one line (every run of white space, newlines too, as one space)."""
    return " ".join(str(message).split())


@contextlib.contextmanager
def beyond_reach(what):
    """Turn an answer the library cannot compute (a RuntimeError: a tail that underflows, a
    MemoryError: an array too large to hold, an OverflowError) into the CLI's one-line input
    error naming ``what`` (the option and its value)."""
    try:
        yield
    except MemoryError as exc:
        raise InputError(f"{what} needs more memory than this machine has ({one_line(exc)})") from None
    except (RuntimeError, OverflowError) as exc:
        raise InputError(f"{what} is beyond what can be computed in floating point "
                         f"({one_line(exc)})") from None
    except ValueError as exc:  # the library's own refusal, named by the option the user gave
        raise InputError(f"{what}: {one_line(exc)}") from None


def report_context(args) -> dict:
    """What report.html says of the run: its command line and the list its warnings go to
    (set by :func:`predstab.cli._terminal.main`; a bare command line when called otherwise)."""
    return {"command": getattr(args, "command_line", f"predstab {getattr(args, 'command', '')}"),
            "warnings": getattr(args, "warnings_seen", [])}


# ----------------------------------------------------------------------------- the CLI's words
_QUOTED_NAME = re.compile(r"'(\w+)' \(`\1`\)")  # APS's "'categories' (`categories`)": one mention
_R_SETTING = re.compile(r"'(\w+)' = '([^']*)'")  # APS's "'scale' = 'ordinal'"
_KEYWORD = re.compile(r"\b([A-Za-z_]\w*)=('[^']*'|\[[^\]]*\]|[\w.+-]+)((?: or '[^']*')*)")
_NAME = re.compile(r"`(\w+)`")


def _option_value(text) -> str:
    """A Python value of a message as the command line writes it: 'metric' -> metric,
    ['low', 'mid'] -> low,mid."""
    if text.startswith("["):
        return ",".join(v.strip().strip("'\"") for v in text[1:-1].split(",") if v.strip())
    return text.strip("'\"")


def reword(text, words) -> str:
    """``text`` (a message of the library, which names its parameters as Python does) in the
    words of the command line: ``words`` maps a parameter to what the user typed for it (a file:
    ``"predictions": "PREDICTIONS 'p.csv'"``; an option: ``"scale": "--scale"``), and any other
    phrase of the library (``"icc()"``) to the command line's one (``"--measure icc"``).

    `` `name` `` becomes ``words[name]``, ``name='value'`` of an option ``--option value``
    (``categories=['a', 'b']``: ``--categories a,b``); names ``words`` does not hold stay.

    Examples
    --------
    >>> reword("`scale` is needed: `predictions` holds integers; pass scale='metric' or 'ordinal'",
    ...        {"predictions": "PREDICTIONS 'p.csv'", "scale": "--scale"})
    "--scale is needed: PREDICTIONS 'p.csv' holds integers; pass --scale metric or ordinal"
    """
    for phrase, said in words.items():
        if not phrase.isidentifier():
            text = text.replace(phrase, said)
    text = _QUOTED_NAME.sub(lambda m: words.get(m[1], m[0]), text)
    text = _R_SETTING.sub(lambda m: f"{words[m[1]]} {m[2]}" if m[1] in words else m[0], text)

    def keyword(m):
        said = words.get(m[1])
        if said is None or not said.startswith("--") or " " in said:
            return m[0]
        more = [_option_value(v) for v in re.findall(r"'[^']*'", m[3])]
        value = _option_value(m[2])
        return " or ".join([said if value == "True" else f"{said} {value}", *more])  # a flag: itself

    text = _KEYWORD.sub(keyword, text)
    return _NAME.sub(lambda m: words.get(m[1], m[0]), text)


#: predstab.read_table's advice (in the Python API's keywords) as the command line's options,
#: which say it per file
READER_WORDS = {"Say which with header=True or header=False":
                "Say which for this file with --header-in FILE or --no-header-in FILE",
                "pass header=False": "pass --no-header-in FILE", "pass header=True": "pass --header-in FILE",
                "read with sep=';', dec=','": "read with --sep ';' --dec ','"}


@contextlib.contextmanager
def in_cli_words(*, transposable=(), **words):
    """Within the block, what the library says (its errors and warnings) names what the user
    typed (:func:`reword` with ``words``), not the Python parameters: the library keeps its own
    words for Python users, and no input is checked twice. An error becomes the CLI's one-line
    :class:`InputError`. The parameters named in ``transposable`` are files that ``--transpose``
    turns: the gate's orientation warning names the file and that option
    (:func:`~predstab._core._gate.described_as`) instead of advising ``name.T``."""
    shown = warnings.showwarning

    def show(message, category, *args, **kwargs):
        shown(reword(str(message), words), category, *args, **kwargs)

    warnings.showwarning = show
    try:
        with described_as(**{name: (words[name], "--transpose") for name in transposable}):
            yield
    except (ValueError, TypeError) as exc:  # InputError too: beyond_reach's lines quote the library
        raise InputError(reword(one_line(exc), words)) from exc  # --debug shows where
    finally:
        warnings.showwarning = shown
