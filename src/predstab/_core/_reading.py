"""Files in: R's tables, labels and the checks of what was read, with clear errors.

CSV, TSV and white-space tables are read as R's ``read.csv`` / ``read.csv2`` / ``read.table``
read the files R users write (``write.csv``, ``write.csv2``, ``write.table``: separator and
decimal mark detected, header decided by R's quoting, row names kept as text, "NA" and empty
cells missing; :func:`read_table` says how), and Parquet, into a :class:`pandas.DataFrame`;
every problem becomes an :class:`InputError` whose message names the file and, where it can,
the line (as the file counts it) and column. :func:`numeric_matrix` and :func:`label_matrix`
turn a table into the numbers or the labels (categories) a measure reads;
What the values mean (orientation, labels or numbers, row names) is decided by the gate,
:mod:`predstab._core._gate`, for files and arrays alike.

Files out (atomic writes, staged output folders, signals) are :mod:`predstab._core._writing`.
"""

from __future__ import annotations

import contextlib
import csv
import difflib
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ._exceptions import PredstabWarning, warn_outside
from ._gate import InputError
from ._ratings import as_numeric_matrix, as_real_vector
from ._validation import InvalidParameterError, Options, validate_params

__all__ = [
    "InputError",
    "InputNote",
    "read_table",
    "cell_location",
    "numeric_matrix",
    "label_matrix",
    "common_labels",
    "real_values",
    "column",
    "unique_columns",
    "parse_list",
]

# R's write.csv writes "NA"; spreadsheets write empty cells. Nothing else is missing.
_NA_VALUES = ("NA", "", "NaN", "nan")
# what R's type.convert reads as a number (no hexadecimal, no "1_000"); "Inf" is refused later
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
# the characters of a column of bare decimal numbers (whole numbers): float() / int() read
# exactly R's numbers in this alphabet, so a column of them is read without a regex per cell
_DECIMAL_CHARS = re.compile(r"[0-9eE.+\-\n]*")
_WHOLE_CHARS = re.compile(r"[0-9+\-\n]*")
_QUOTED = re.compile(r'"(?:[^"]|"")*"?')
# --sep as typed in a shell, and how each separator is named in messages
_SEPARATORS = {",": ",", ";": ";", "\t": "\t", "\\t": "\t", "tab": "\t", " ": " ", "space": " ",
               "whitespace": " "}
_SHOWN = {",": "','", ";": "';'", "\t": "tab", " ": "white space"}
_R_READER = {(",", "."): "R's read.csv", (";", ","): "R's read.csv2", ("\t", "."): "R's read.delim",
             ("\t", ","): "R's read.delim2", (" ", "."): "R's read.table"}


class InputNote(PredstabWarning):
    """Something the reader decided about the input that the user should know (the CLI prints
    it as ``note: ...``), e.g. that a first row of numbers was read as data."""


def _is_number(text, dec=".") -> bool:
    text = text.strip()
    return bool(_NUMBER.fullmatch(text.replace(",", ".") if dec == "," and "." not in text else text))


def _dialect(sep, dec) -> str:
    """How a CSV dialect is named in messages: ``sep ';', dec ',' (R's read.csv2)``."""
    reader = _R_READER.get((sep, dec))
    return f"sep {_SHOWN[sep]}, dec '{dec}'" + (f" ({reader})" if reader else "")


def _sniff_sep(lines, suffix) -> str:
    """The separator of a text table: tab for ``.tsv``/``.tab`` files; else, on the first line
    that shows one outside quotes, a tab, then ';' (R's ``write.csv2``, whose decimal commas
    also hold ','), then ','; else white space between fields (R's ``write.table``); else ','
    (one column)."""
    if suffix in (".tsv", ".tab"):
        return "\t"
    for line in lines[:100]:
        bare = _QUOTED.sub("x", line)
        for sep in ("\t", ";", ","):
            if sep in bare:
                return sep
        if len(bare.split()) > 1:
            return " "
    return ","


def _quoted_fields(raw, sep) -> list:
    """For each field of one record (its raw text), whether it is written in quotes."""
    if sep == " ":
        raw = raw.strip()
    flags, i, n = [], 0, len(raw)
    while True:
        while i < n and raw[i] == " " and sep != " ":
            i += 1
        quoted = i < n and raw[i] == '"'
        flags.append(quoted)
        if quoted:
            i += 1
            while i < n:
                if raw[i] == '"':
                    if raw[i + 1:i + 2] == '"':
                        i += 2
                        continue
                    break
                i += 1
        k = raw.find(sep, i)
        if k < 0:
            return flags
        i = k + 1
        while sep == " " and i < n and raw[i] == " ":
            i += 1


def _records(text, sep, *, what, path, dialect):
    """``(line, fields)`` for every non-blank record of ``text``: ``line`` is the (1-based)
    physical line it starts on, so multi-line quoted fields and blank lines (skipped, as R's
    ``blank.lines.skip``) keep the line numbers of the file."""
    if sep == " ":
        source = (line.strip() + "\n" for line in io.StringIO(text))
        reader = csv.reader(source, delimiter=" ", quotechar='"', skipinitialspace=True)
    else:
        reader = csv.reader(io.StringIO(text), delimiter=sep, quotechar='"')
    out, previous = [], 0
    try:
        for fields in reader:
            start, previous = previous + 1, reader.line_num
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue
            out.append((start, fields))
    except csv.Error as exc:
        raise InputError(f"{what} file '{path}', line {previous + 1}: could not be read as CSV "
                         f"({dialect}): {exc}") from None
    return out


def _column_values(cells, dec):
    """One column's cells (text) as R's ``type.convert`` types them: whole numbers (int64, or
    float64 when a cell is missing), numbers (float64), else text (object, None for missing)."""
    joined = "\n".join(cells)
    if dec == "," and "." not in joined:
        joined = joined.replace(",", ".")
    if _DECIMAL_CHARS.fullmatch(joined):  # the usual column: bare numbers, read fast
        numbers = joined.split("\n")
        with contextlib.suppress(OverflowError, ValueError):  # "1e", "", huge: cell by cell below
            if _WHOLE_CHARS.fullmatch(joined):
                return np.array([int(c) for c in numbers], dtype=np.int64)
            return np.array([float(c) for c in numbers])
    cells = [cell.strip() for cell in cells]
    missing = [cell in _NA_VALUES for cell in cells]
    numbers = [cell.replace(",", ".") if dec == "," and "." not in cell else cell for cell in cells]
    if all(m or _NUMBER.fullmatch(c) for c, m in zip(numbers, missing, strict=True)):
        if not any(missing) and all(_INTEGER.fullmatch(c) for c in numbers):
            with contextlib.suppress(OverflowError):
                return np.array([int(c) for c in numbers], dtype=np.int64)
        return np.array([np.nan if m else float(c) for c, m in zip(numbers, missing, strict=True)])
    return np.array([None if m else c for c, m in zip(cells, missing, strict=True)], dtype=object)


def _first_line_is_data(fields, quoted, *, what, path, line, dec="."):
    """Whether the first record of a file without ``header`` is data, by R's quoting: a header
    is text (quoted, as R's ``write.csv`` writes it, or not); a line of bare numbers and missing
    values is data; quoted text beside bare numbers is a data line of R's (a quoted row name or
    label). Bare ``0,1,...,k-1``, the column numbers pandas writes for an unnamed matrix, is a
    header (with a note) when k >= 3 (a first data row that climbs 0, 1, 2, ... across refits
    or raters is rare); ``0`` and ``0,1`` (binary labels as often as a header) are refused."""
    cells = [cell.strip() for cell in fields]
    bare = [cell for cell, q in zip(cells, quoted, strict=True) if not q]
    if any(cell not in _NA_VALUES and not _is_number(cell, dec) for cell in bare):
        return False  # a word without quotes: a name
    if not bare:
        return False  # every field in quotes: R's header
    if len(bare) < len(cells):
        return True  # quoted text beside bare numbers: how R writes a data line
    if cells[0] == "" and len(cells) > 1 and cells[1:] == [str(j) for j in range(len(cells) - 1)]:
        return False  # ",0,1,2": pandas' header of an indexed, unnamed matrix
    if cells == [str(j) for j in range(len(cells))]:
        if len(cells) >= 3:
            warn_outside(f"{what} file '{path}': line {line} ('0,1,...,{len(cells) - 1}') is read as the "
                         "column numbers pandas writes as a header; pass header=False if it is a row "
                         "of data", InputNote)
            return False
        raise InputError(f"{what} file '{path}', line {line}: is '{','.join(cells)}' the column numbers "
                         "pandas writes as a header (to_csv of an unnamed matrix) or a first row of data "
                         "(binary labels)? Say which with header=True or header=False")
    return True


def _decimal_hint(raw, sep, dec) -> str:
    if sep == "," and dec == "." and re.search(r"\d,\d", raw):
        return "; decimal commas (1,5)? Files of R's write.csv2 are read with sep=';', dec=','"
    return ""


#: bytes read at a time from a file, a pipe or standard input
_CHUNK = 1 << 20
#: the longest line of a text table: a table of 10^6 columns of 20-character numbers has lines of
#: 20 MiB; a stream without line ends (``tr '\\0' a < /dev/zero``) reaches this within a second
_MAX_LINE = 64 << 20


def _max_bytes() -> int:
    """The most bytes of text read from one input: a quarter of the machine's memory (the table
    built from them takes several times more), 4 GiB where the memory size is unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
    except (AttributeError, ValueError, OSError):
        return 4 << 30


def _not_text(what, path, data, start, problem):
    line = data.count(b"\n", 0, start) + 1
    return InputError(f"{what} file '{path}' is not {problem} (byte {start}, line {line})")


def _refuse_device(handle, path, *, what) -> None:
    """A character device that is not a terminal (``/dev/zero``, ``/dev/urandom``, ``/dev/null``,
    also as standard input: ``- < /dev/zero``) is no table and may never end: refused before a
    byte is read. Files, pipes, FIFOs, sockets and terminals pass (a terminal ends with Ctrl-D)."""
    import stat

    try:
        fd = handle.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return  # no descriptor (a replaced sys.stdin): nothing to tell
    if stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd):
        shown = f"file '{path}'" if str(path) != "-" else "(standard input)"
        raise InputError(f"{what} {shown} is a device, not a file or a pipe: a device such as /dev/zero "
                         "or /dev/urandom never ends; give a file, a pipe, or - for standard input")


def _read_bytes(path, *, what) -> bytes:
    """The bytes of a text table, read a chunk at a time from a file, a pipe (process
    substitution: ``<(...)``, a FIFO) or standard input (``-``), in bounded memory.

    What tells an input that never ends from a table is refused within seconds: a character
    device (:func:`_refuse_device`, before reading), a NUL byte or bytes that are no UTF-8 (in
    the chunk where they appear: ``/dev/zero`` or ``/dev/urandom`` behind a pipe after its first
    MiB), a line longer than ``_MAX_LINE`` (64 MiB: a stream without line ends). Valid text
    that keeps coming (``yes 1,2 |``) cannot be told from a large table until it passes
    :func:`_max_bytes` (a quarter of the machine's memory), where it is refused."""
    import codecs
    import sys

    decoder = codecs.getincrementaldecoder("utf-8")()
    chunks, total, limit, line_start = [], 0, _max_bytes(), 0
    with contextlib.ExitStack() as stack:
        handle = sys.stdin.buffer if str(path) == "-" else stack.enter_context(open(path, "rb"))
        _refuse_device(handle, path, what=what)
        while chunk := handle.read(_CHUNK):
            if b"\0" in chunk:
                data = b"".join(chunks) + chunk
                raise _not_text(what, path, data, total + chunk.index(b"\0"),
                                "a text table: it holds a NUL byte (a device such as /dev/zero, or a binary "
                                "file?)")
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                data = b"".join(chunks) + chunk
                raise _not_text(what, path, data, total + exc.start, "UTF-8 text") from None
            chunks.append(chunk)
            end = chunk.rfind(b"\n")
            line_start = total + end + 1 if end >= 0 else line_start
            total += len(chunk)
            if total - line_start > _MAX_LINE:
                lines = sum(c.count(b"\n") for c in chunks) + 1
                raise InputError(f"{what} file '{path}': line {lines} is longer than {_MAX_LINE >> 20} MiB "
                                 "without a line end: not a text table (a stream that never ends?)")
            if total > limit:
                raise InputError(f"{what} file '{path}' is longer than {limit >> 20} MiB, a quarter of this "
                                 "machine's memory: an input that never ends (a device, or a pipe that keeps "
                                 "writing)? Give a file, or a pipe that ends")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        data = b"".join(chunks)
        raise _not_text(what, path, data, len(data) - 1, "UTF-8 text (it ends inside a character)") from None
    return b"".join(chunks)


def _read_text_table(path, *, what, header, sep, dec) -> pd.DataFrame:
    """A CSV / TSV / white-space table as R's readers see it (see :func:`read_table`)."""
    data = _read_bytes(path, what=what)
    text = data.decode("utf-8-sig")  # a byte-order mark is not part of the first name
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    sep = _SEPARATORS[sep] if sep is not None else _sniff_sep(lines, path.suffix.lower())
    dec = dec if dec is not None else ("," if sep == ";" else ".")
    dialect = _dialect(sep, dec)
    records = _records(text, sep, what=what, path=path, dialect=dialect)
    if not records:
        raise InputError(f"{what} file '{path}' is empty")
    line0, first = records[0]
    if header is None:
        raw = "\n".join(lines[line0 - 1:(records[1][0] - 1) if len(records) > 1 else None])
        quoted = _quoted_fields(raw, sep)
        if len(quoted) != len(first):
            quoted = [False] * len(first)
        header = not _first_line_is_data(first, quoted, what=what, path=path, line=line0, dec=dec)
        if not header:
            named = "column named V1" if len(first) == 1 else f"columns named V1..V{len(first)}"
            warn_outside(f"{what} file '{path}': its first row holds only numbers, so it is read as "
                         f"data ({named}); pass header=True if it names the columns", InputNote)
    names = [name.strip() for name in first] if header else None
    body = records[1:] if header else records
    if not body:
        raise InputError(f"{what} file '{path}' has no data rows or no columns")
    width = len(body[0][1])
    ends_empty = all(fields[-1].strip() == "" for _, fields in body) and width > 1
    row_names = False
    if header:
        if width == len(names) + 1:
            line, fields = body[0]
            if ends_empty:
                raise InputError(f"{what} file '{path}', line {line} ends with {_SHOWN[sep]} after its "
                                 f"last value: {width} fields under a header (line {line0}) of "
                                 f"{len(names)}; remove the trailing separators")
            firsts = [f[0].strip() for _, f in body]
            named_rows = (firsts == [str(i + 1) for i in range(len(body))]  # R's default row names
                          or all(lines[n - 1].lstrip().startswith('"') or not _is_number(f[0], dec)
                                 for n, f in body))
            if not named_rows:
                raise InputError(f"{what} file '{path}', line {line}: {width} fields under a header "
                                 f"(line {line0}) of {len(names)} ({dialect})"
                                 f"{_decimal_hint(lines[line - 1], sep, dec)}; if the first column holds "
                                 "row names, give it an empty name in the header (as R's write.csv "
                                 "does)")
            row_names = True  # R's rule: a header one field short names the columns after row names
        elif width == len(names):
            if ends_empty and names[-1] == "":
                raise InputError(f"{what} file '{path}', line {line0} ends with {_SHOWN[sep]}: every "
                                 "line has a trailing separator, which adds an empty column; remove them")
            if names[0] == "" or names[0].startswith("Unnamed: 0"):
                row_names, names = True, names[1:]  # R's write.csv, pandas' to_csv: the row names
        else:
            line, fields = body[0]
            raise InputError(f"{what} file '{path}', line {line}: {width} fields under a header (line "
                             f"{line0}) of {len(names)} ({dialect})"
                             f"{_decimal_hint(lines[line - 1], sep, dec)}")
    elif ends_empty:
        raise InputError(f"{what} file '{path}', line {body[0][0]} ends with {_SHOWN[sep]}: every line has "
                         "a trailing separator, which adds an empty column; remove them")
    for line, fields in body:
        if len(fields) != width:
            raise InputError(f"{what} file '{path}', line {line}: {len(fields)} fields where line "
                             f"{body[0][0]} has {width} ({dialect})"
                             f"{_decimal_hint(lines[line - 1], sep, dec)}")
    columns = list(zip(*(fields for _, fields in body), strict=True))
    index = None
    if row_names:
        index = pd.Index([cell.strip() for cell in columns[0]], dtype=object)
        columns = columns[1:]
    if names is None:
        names = [f"V{j + 1}" for j in range(len(columns))]
    if not columns:
        raise InputError(f"{what} file '{path}' has no data rows or no columns")
    frame = pd.DataFrame({j: _column_values(cells, dec) for j, cells in enumerate(columns)}, index=index)
    frame.columns = pd.Index(names, dtype=object)
    frame.attrs["lines"] = np.array([line for line, _ in body])
    frame.attrs["dec"] = dec
    return frame


@validate_params({"what": [str], "header": ["boolean", None],
                  "sep": [Options(set(_SEPARATORS)), None], "dec": [Options({".", ","}), None]})
def read_table(path, *, what="input", header=None, sep=None, dec=None) -> pd.DataFrame:
    """Read a CSV, TSV or Parquet file into a DataFrame, as R's readers read it.

    Text files are read the way R users write them (``write.csv``, ``write.csv2``,
    ``write.table``) and R's ``read.csv`` / ``read.csv2`` / ``read.table`` read them back:

    - **Separator and decimal mark** (``sep``, ``dec``; R's arguments): by default a tab for
      ``.tsv``/``.tab`` files; else the first line that shows a separator outside quotes
      decides: a tab, else ``;`` (then decimal commas, R's ``write.csv2``), else ``,``, else
      white space (R's ``write.table``).
    - **Header** (``header``): None decides by R's quoting. A first line holding a word, or
      only quoted fields (R writes names in quotes), names the columns; a first line of bare
      numbers and missing values (or of bare numbers beside quoted text: R's data lines) is
      data, named ``V1, V2, ...`` as R's ``read.table`` names them, with an :class:`InputNote`.
      A bare ``0,1,...,k-1`` (pandas' header of an unnamed matrix, or data?) is refused.
    - **Row names**: a header with one field fewer than the data lines (R's ``read.table``
      rule, ``write.table``'s files), or an empty first name (``write.csv``; pandas), means
      the first column holds the row names, which become the index *as text* ("1".."n" too:
      R's default row names are names, not positions). Under a short header the row names
      must be quoted, words or R's default ``1..n`` (``write.table(quote = FALSE)``); other
      bare numbers there (a decimal comma? a trailing separator?) are refused.
    - **Cells**: leading and trailing spaces are dropped; ``NA``, an empty cell, ``NaN`` are
      missing; a column of whole numbers is int64 (float64 with a missing cell), of numbers
      float64, else text. Duplicate column names are kept (:func:`column` refuses to pick
      one of them). Blank lines are skipped; a UTF-8 byte-order mark is ignored.
    - A line with another number of fields, or a trailing separator on every line, is an
      :class:`InputError` naming the line and the dialect read.

    The frame's ``attrs`` hold ``"path"`` and, for text files, ``"lines"``: the line of the
    file every row starts on (for messages).

    Parameters
    ----------
    path : str or Path
        ``.parquet``/``.pq`` files are read with pandas' Parquet reader (their columns and
        index as stored), anything else as text.
    what : str
        How the file is called in error messages (``"PREDICTIONS"``, ``"--test"``).
    header : bool or None, default None
        Whether the first line names the columns (None: decided as above). Parquet files
        always name their columns (a given ``header`` is then ignored with an
        :class:`InputNote`).
    sep : {",", ";", "\\t", " "} or None, default None
        The field separator (``"tab"`` and ``"space"`` are also accepted; ``" "`` is any
        white space, as R's ``sep = ""``). None: detected.
    dec : {".", ","} or None, default None
        The decimal mark. None: ``","`` when ``sep`` is ``";"``, else ``"."``.

    Raises
    ------
    InputError
        Missing file, empty file, or a line that cannot be read (with its line number).

    Examples
    --------
    >>> import tempfile, warnings
    >>> folder = tempfile.mkdtemp()
    >>> _ = Path(folder, "p.csv").write_text('"";"a";"b"\\n"1";1,5;2\\n"2";3;4,25\\n')  # write.csv2
    >>> frame = read_table(Path(folder, "p.csv"))
    >>> frame.index.tolist(), list(frame.columns), frame.to_numpy().tolist()
    (['1', '2'], ['a', 'b'], [[1.5, 2.0], [3.0, 4.25]])
    """
    path = Path(path)
    if str(path) == "-":  # standard input, as Unix tools read it
        frame = _read_text_table(path, what=what, header=header, sep=sep, dec=dec)
        frame.attrs["path"] = "-"
        if frame.shape[0] == 0 or frame.shape[1] == 0:
            raise InputError(f"{what} (standard input) has no data rows or no columns")
        return frame
    if not path.exists():
        raise InputError(f"{what} file '{path}' does not exist")
    if path.is_dir():
        raise InputError(f"{what} '{path}' is a directory; expected a CSV or Parquet file")
    if path.suffix.lower() in (".parquet", ".pq"):
        if header is not None:
            warn_outside(f"{what} '{path}' is a Parquet file, which always names its columns: "
                         f"--{'' if header else 'no-'}header is ignored", InputNote)
        try:
            frame = pd.read_parquet(path)
        except ImportError:
            raise InputError(f"reading {what} '{path}' (Parquet) needs pyarrow: pip install pyarrow, "
                             "or give a CSV file") from None
        except Exception as exc:  # pyarrow raises many types; all mean "not a readable parquet file"
            raise InputError(f"{what} file '{path}' is not a readable Parquet file: {exc}") from None
    else:
        frame = _read_text_table(path, what=what, header=header, sep=sep, dec=dec)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputError(f"{what} file '{path}' has no data rows or no columns")
    frame.attrs["path"] = str(path)
    return frame


def cell_location(frame, row_pos, col=None) -> str:
    """Where row ``row_pos`` (0-based) of a frame from :func:`read_table` is in its file:
    ``'path', line 7`` (the line the row starts on, blank lines and multi-line fields counted)
    or, for Parquet, ``'path', row 6``; with ``col``, ``, column 'col'`` after it."""
    path = frame.attrs.get("path", "input")
    lines = frame.attrs.get("lines")
    if path.lower().endswith((".parquet", ".pq")):
        where = f"'{path}', row {row_pos + 1}"
    elif lines is not None and len(lines) == frame.shape[0]:
        where = f"'{path}', line {int(lines[row_pos])}"
    else:
        where = f"'{path}', line {row_pos + 2}"  # a frame not from read_table: one header line
    return where if col is None else f"{where}, column '{col}'"


def _where(frame, row_pos, col) -> str:
    return cell_location(frame, row_pos, col)


def numeric_matrix(frame, *, what="input", allow_missing=True) -> np.ndarray:
    """All columns of ``frame`` as a float array; a bad cell is named by its line and column.

    The numbers are read by the package's one reader of numeric matrices,
    :func:`predstab._core._ratings.as_numeric_matrix` (numbers and booleans of any dtype, None / NaN /
    pd.NA as NaN, no infinities), column by column. What only a file has is done here: a cell of
    a text column that holds a number (``"1.5"``) is that number, and a refused cell is named by
    its line (CSV) or row (Parquet) and column, the first one column by column.

    Raises
    ------
    InputError
        A cell that is not a number, an infinite one, or a missing cell when ``allow_missing``
        is False.
    """
    out = np.empty(frame.shape, dtype=float)
    for j, col in enumerate(frame.columns):
        cells = _text_as_numbers(frame, j, what=what)
        try:
            out[:, j] = as_numeric_matrix(cells)  # its message is replaced by one naming the cell
        except (TypeError, ValueError) as exc:
            i = _first_refused(cells)
            problem = (f"expected a number, got {cells[i]!r}" if isinstance(exc, TypeError)
                       else "infinite values are not allowed")
            raise InputError(f"{what}: {_where(frame, i, col)}: {problem}") from None
    if not allow_missing and np.isnan(out).any():
        i, j = np.argwhere(np.isnan(out))[0]
        raise InputError(f"{what}: {_where(frame, i, frame.columns[j])}: missing value (NA) not allowed here")
    return out


def _text_as_numbers(frame, j, *, what):
    """Column ``j`` of ``frame`` as an array, the numbers written as text (a CSV column that also
    holds a word stays text in pandas) turned into numbers; a text cell that is no number is an
    :class:`InputError` naming it."""
    values = frame.iloc[:, j]
    if not (values.dtype == object or isinstance(values.dtype, pd.StringDtype)):
        return values.to_numpy()
    cells = values.to_numpy(copy=True)  # object (str) dtype: an object array
    text = np.array([isinstance(v, str) for v in cells], dtype=bool)
    if text.any():
        numbers = pd.to_numeric(pd.Series(cells[text], dtype=object), errors="coerce").to_numpy(dtype=float)
        if np.isnan(numbers).any():
            i = int(np.flatnonzero(text)[np.flatnonzero(np.isnan(numbers))[0]])
            raise InputError(f"{what}: {_where(frame, i, frame.columns[j])}: expected a number, "
                             f"got {cells[i]!r}")
        cells[text] = numbers
    return cells


def _first_refused(cells) -> int:
    """Position of the first cell :func:`~predstab._core._ratings.as_numeric_matrix` refuses in ``cells``
    (which it refuses as a whole): the end of the shortest refused prefix of the cells that are not
    missing (a missing cell is never the problem), by bisection."""
    present = np.flatnonzero(~pd.isna(cells))
    accepted, refused = 0, len(present)  # present cells [:accepted] are read, [:refused] are not
    while refused - accepted > 1:
        middle = (accepted + refused) // 2
        try:
            as_numeric_matrix(cells[present[:middle]])
        except (TypeError, ValueError):
            refused = middle
        else:
            accepted = middle
    return int(present[accepted])


def _label(value, dec):
    """One cell as a label: None when missing, a number (an int when whole: 1, 1.0 and "1.0" are
    one label) when it is or reads as one, else the text without surrounding spaces."""
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        text = value.strip()
        if _is_number(text, dec) and text.lower().lstrip("+-") not in ("inf", "infinity"):
            number = float(text.replace(",", ".") if dec == "," and "." not in text else text)
            return int(number) if number.is_integer() else number
        return text
    return value


def _as_text(labels) -> np.ndarray:
    """Labels as text, numbers in their shortest form (1, not 1.0)."""
    text = [None if v is None else str(v) for v in labels.ravel()]
    return np.array(text, dtype=object).reshape(labels.shape)


def common_labels(*arrays) -> tuple:
    """Label arrays (of :func:`label_matrix`) made comparable: numbers stay numbers when every
    array holds only numbers; else every label of every array is text, numbers written in their
    shortest form, so the truth "1" (a column that also holds a word) and a prediction 1 are one
    label.

    Examples
    --------
    >>> a, b = common_labels(np.array([1, 0], dtype=object), np.array(["1", "x"], dtype=object))
    >>> a.tolist(), b.tolist()
    (['1', '0'], ['1', 'x'])
    """
    text = any(isinstance(v, str) for a in arrays for v in np.asarray(a, dtype=object).ravel())
    if not text:
        return tuple(np.asarray(a, dtype=object) for a in arrays)
    return tuple(_as_text(np.asarray(a, dtype=object)) for a in arrays)


def label_matrix(frame) -> np.ndarray:
    """All cells of ``frame`` as an object array of labels (categories, ratings as given), None
    for a missing cell: what the measures of categories read.

    A label is a number when the cell is or reads as one (1, 1.0 and "1.0" are the same label,
    the int 1, whatever the column's dtype: a column of whole numbers with a missing cell is
    float64), else its text without surrounding spaces ("yes " is "yes"). When any cell is
    text, every label is text (:func:`common_labels`), so "1" in a column that also holds a
    word and 1 in another column are one label.

    Examples
    --------
    >>> label_matrix(pd.DataFrame({"a": [2, 1], "b": [1.0, float("nan")]})).tolist()
    [[2, 1], [1, None]]
    >>> label_matrix(pd.DataFrame({"a": ["x ", " 1.0"], "b": [1.0, float("nan")]})).tolist()
    [['x', '1'], ['1', None]]
    """
    dec = frame.attrs.get("dec", ".")
    cells = frame.to_numpy(dtype=object)
    labels = np.array([_label(v, dec) for v in cells.ravel()], dtype=object).reshape(cells.shape)
    return common_labels(labels)[0]


def real_values(values, *, name, rectangular=False) -> np.ndarray:
    """``values`` as a float array, read by the package's reader of real numbers
    (:func:`predstab._core._ratings.as_real_vector`): text, complex numbers, pd.NA or a ragged nesting
    raise :class:`~predstab.InvalidParameterError` naming ``name``. ``rectangular`` says in that
    message that a rectangular 2-D array (one column per repeat) is also accepted.

    Examples
    --------
    >>> real_values([1, 2.5], name="n").tolist()
    [1.0, 2.5]
    """
    try:
        return as_real_vector(values, name=name)
    except InvalidParameterError:
        if not rectangular:
            raise
        raise InvalidParameterError(f"`{name}` must be real numbers, a 1-D sequence or a rectangular "
                                    f"2-D array; got {values!r:.80}.") from None


def column(frame, name, *, what="input") -> pd.Series:
    """Column ``name`` of ``frame``; a missing column lists all the ones that exist, the
    closest matches (:func:`difflib.get_close_matches`, ignoring case) first.

    Examples
    --------
    >>> frame = pd.DataFrame(columns=["alpha", "beta", "Target", "gamma"])
    >>> try:
    ...     column(frame, "target")
    ... except InputError as exc:
    ...     print(str(exc).split("; ", 1)[1])
    closest: 'Target'; all 4 columns: Target, alpha, beta, gamma
    """
    if name not in frame.columns:
        names = [str(c) for c in frame.columns]
        lowered = {n.lower(): n for n in reversed(names)}
        matches = difflib.get_close_matches(str(name).lower(), list(lowered), n=5, cutoff=0.6)
        close = [lowered[m] for m in matches]
        ordered = close + [n for n in names if n not in close]
        hint = f"closest: {', '.join(repr(n) for n in close)}; " if close else ""
        raise InputError(f"{what} '{frame.attrs.get('path', '')}' has no column '{name}'; {hint}"
                         f"all {len(names)} columns: {', '.join(ordered)}")
    unique_columns(frame, what=what, only=name)
    return frame[name]


def unique_columns(frame, *, what="input", only=None) -> None:
    """Refuse a frame two of whose columns have the same name (all names, or only ``only``):
    the file names them, and a name that picks the first of two silently is no name.

    Examples
    --------
    >>> try:
    ...     unique_columns(pd.DataFrame([[1, 2, 3]], columns=["A", "A", "B"]), what="SCORES")
    ... except InputError as exc:
    ...     print(exc)
    SCORES '' has 2 columns named 'A' (columns 1 and 2); give every column its own name
    """
    names = [str(c) for c in frame.columns]
    for name in dict.fromkeys(names if only is None else [str(only)]):
        positions = [str(j + 1) for j, c in enumerate(names) if c == name]
        if len(positions) > 1:
            shown = ", ".join(positions[:-1]) + " and " + positions[-1]
            raise InputError(f"{what} '{frame.attrs.get('path', '')}' has {len(positions)} columns named "
                             f"'{name}' (columns {shown}); give every column its own name")


def parse_list(text, *, option, convert=str) -> list:
    """Split ``"a,b,c"`` into a list, converting each item; errors name the option."""
    items = [item.strip() for item in str(text).split(",")]
    if not items or any(item == "" for item in items):
        raise InputError(f"{option} must be a comma-separated list without empty items; got {text!r}")
    try:
        return [convert(item) for item in items]
    except ValueError:
        raise InputError(f"{option} must be a comma-separated list of {convert.__name__}s; "
                         f"got {text!r}") from None
