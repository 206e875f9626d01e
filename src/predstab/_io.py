"""Files in and out for the command line: tables, atomic writes, clear errors.

Reading: CSV (including R's ``write.csv`` output, with or without row names, "NA" for
missing values) and Parquet into a :class:`pandas.DataFrame`; every problem becomes an
:class:`InputError` whose message names the file and, where it can, the line and column.

Writing: every output goes to a temporary file in the target directory and is moved into
place with :func:`os.replace`, so an interrupted run (Ctrl-C, a crash) never leaves a
half-written file; an existing file is never replaced unless ``force=True``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "InputError",
    "read_table",
    "numeric_matrix",
    "column",
    "parse_list",
    "atomic_write",
    "write_text",
    "write_figure",
    "fresh_directory",
]

# R's write.csv writes "NA"; spreadsheets write empty cells. Nothing else is missing.
_NA_VALUES = ["NA", "", "NaN", "nan"]


class InputError(ValueError):
    """A problem with the user's input that the CLI reports as one line (exit code 2)."""


def read_table(path, *, what="input") -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame.

    A first column without a name (R's ``write.csv`` row names) becomes the index.

    Parameters
    ----------
    path : str or Path
        ``.parquet``/``.pq`` files are read with pandas' Parquet reader, anything else as CSV.
    what : str
        How the file is called in error messages (``"PREDICTIONS"``, ``"--test"``).

    Raises
    ------
    InputError
        Missing file, empty file, or a CSV line that cannot be parsed (with its line number).
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{what} file '{path}' does not exist")
    if path.is_dir():
        raise InputError(f"{what} '{path}' is a directory; expected a CSV or Parquet file")
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            frame = pd.read_parquet(path)
        except ImportError:
            raise InputError(f"reading {what} '{path}' (Parquet) needs pyarrow: pip install pyarrow, "
                             "or give a CSV file") from None
        except Exception as exc:  # pyarrow raises many types; all mean "not a readable parquet file"
            raise InputError(f"{what} file '{path}' is not a readable Parquet file: {exc}") from None
    else:
        try:
            frame = pd.read_csv(path, na_values=_NA_VALUES, keep_default_na=False, skipinitialspace=True)
        except pd.errors.EmptyDataError:
            raise InputError(f"{what} file '{path}' is empty") from None
        except pd.errors.ParserError as exc:
            # pandas says e.g. "Expected 3 fields in line 5, saw 4": keep that, drop the prefix
            detail = str(exc).split("C error: ")[-1].strip()
            raise InputError(f"{what} file '{path}' could not be read as CSV: {detail}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"{what} file '{path}' is not UTF-8 text (byte {exc.start})") from None
    if frame.shape[1] > 0 and (str(frame.columns[0]) == "" or str(frame.columns[0]).startswith("Unnamed: 0")):
        frame = frame.set_index(frame.columns[0])
        frame.index.name = None
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputError(f"{what} file '{path}' has no data rows or no columns")
    frame.attrs["path"] = str(path)
    return frame


def _where(frame, row_pos, col) -> str:
    path = frame.attrs.get("path", "input")
    # line 1 is the header, so data row 0 is on line 2 (CSV); Parquet has no lines
    if path.lower().endswith((".parquet", ".pq")):
        return f"'{path}', row {row_pos + 1}, column '{col}'"
    return f"'{path}', line {row_pos + 2}, column '{col}'"


def numeric_matrix(frame, *, what="input", allow_missing=True) -> np.ndarray:
    """All columns of ``frame`` as a float array; a non-number names its line and column.

    Raises
    ------
    InputError
        A cell that is not a number, or a missing cell when ``allow_missing`` is False.
    """
    out = np.empty(frame.shape, dtype=float)
    for j, col in enumerate(frame.columns):
        values = frame[col]
        if values.dtype == bool:
            values = values.astype(float)
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna().to_numpy() & ~values.isna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{what}: {_where(frame, i, col)}: expected a number, got {values.iloc[i]!r}")
        out[:, j] = converted.to_numpy(dtype=float, na_value=np.nan)
    if not np.isfinite(out[~np.isnan(out)]).all():
        i, j = np.argwhere(np.isinf(out))[0]
        raise InputError(f"{what}: {_where(frame, i, frame.columns[j])}: infinite values are not allowed")
    if not allow_missing and np.isnan(out).any():
        i, j = np.argwhere(np.isnan(out))[0]
        raise InputError(f"{what}: {_where(frame, i, frame.columns[j])}: missing value (NA) not allowed here")
    return out


def column(frame, name, *, what="input") -> pd.Series:
    """Column ``name`` of ``frame``; a missing column lists the ones that exist."""
    if name not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:12])) + (" ..." if frame.shape[1] > 12 else "")
        raise InputError(f"{what} '{frame.attrs.get('path', '')}' has no column '{name}'; columns: {shown}")
    return frame[name]


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


def atomic_write(path, write: Callable[[Path], None], *, force=False) -> Path:
    """Write ``path`` through ``write(tmp_path)`` and move it into place atomically.

    The temporary file lives in the same directory (so :func:`os.replace` is atomic) and is
    removed if ``write`` fails or is interrupted, so no half-written output is ever left.

    Raises
    ------
    InputError
        ``path`` exists and ``force`` is False.
    """
    path = Path(path)
    if path.exists() and not force:
        raise InputError(f"'{path}' already exists; use --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp" + path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:  # also KeyboardInterrupt: never leave the temporary file behind
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return path


def write_text(path, text, *, force=False) -> Path:
    """Atomically write ``text`` (UTF-8) to ``path``; refuses to overwrite unless ``force``."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), force=force)


def write_figure(path, figure, *, force=False, dpi=120) -> Path:
    """Atomically save a matplotlib ``figure`` (format from the suffix of ``path``)."""
    fmt = Path(path).suffix.lstrip(".") or "png"
    return atomic_write(path, lambda tmp: figure.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight"),
                        force=force)


def fresh_directory(path, *, force=False) -> tuple[Path, bool]:
    """Return ``(directory, renamed)``: ``path`` itself if it is new (or ``force``), else the
    first free ``path-2``, ``path-3``, ... so earlier results are never touched."""
    path = Path(path)
    if force or not path.exists():
        path.mkdir(parents=True, exist_ok=True)
        return path, False
    k = 2
    while Path(f"{path}-{k}").exists():
        k += 1
    new = Path(f"{path}-{k}")
    new.mkdir(parents=True)
    return new, True


# ----------------------------------------------------------------------------- terminal and JSON
__all__ += ["ProgressBar", "dumps"]


class ProgressBar:
    """A one-line progress bar on a stream (stderr), drawn only when that stream is a terminal.

    Call it as ``bar(done, total)`` (the progress callback protocol of
    :func:`predstab.repeated_predictions`) or ``bar()`` to advance by one.
    """

    def __init__(self, label="fitting", *, total=None, stream=None, enabled=None, width=28):
        import sys
        import time

        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = bool(isatty()) if enabled is None else bool(enabled)
        self.label, self.total, self.width = label, total, width
        self.done = 0
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def __call__(self, done=None, total=None, *args, **kwargs):
        self.done = self.done + 1 if done is None else int(done)
        if total is not None:
            self.total = int(total)
        if not self.enabled:
            return
        import time

        now = time.perf_counter()
        finished = self.total is not None and self.done >= self.total
        if now - self._last_draw < 0.1 and not finished:
            return
        self._last_draw = now
        elapsed = now - self._start
        if self.total:
            filled = int(self.width * min(self.done, self.total) / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            text = f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s"
        else:
            text = f"\r{self.label} {self.done} {elapsed:5.1f}s"
        self.stream.write(text)
        self.stream.flush()

    def close(self):
        """End the line (if anything was drawn)."""
        if self.enabled and self._last_draw:
            self.stream.write("\n")
            self.stream.flush()
        self._last_draw = 0.0


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def dumps(obj) -> str:
    """JSON text of ``obj`` (NumPy scalars and arrays allowed; NaN becomes null)."""
    import json

    def clean(v):
        if isinstance(v, float) and not np.isfinite(v):
            return None
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v

    return json.dumps(clean(obj), indent=2, default=_json_default) + "\n"
