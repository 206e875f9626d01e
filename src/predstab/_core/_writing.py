"""Files out: atomic writes, output folders written all at once or not at all, signals.

Every output goes to a temporary file in the target directory and is moved into place with
:func:`os.replace`, so an interrupted run (Ctrl-C, a crash) never leaves a half-written file;
an existing file is never replaced unless ``force=True``. New files get the permissions
:func:`open` would give them (``0o666`` minus the umask); a replaced file keeps its permission
bits (without set-user-ID / set-group-ID) and, where allowed, its owner.
:func:`check_output_file` and :func:`check_output_dir` check an output path *before* any
computing: an existing file without ``force``, a missing parent folder (never created
silently), a place where nothing can be written, a symbolic link, a FIFO, a device or an input
file is an :class:`~predstab._core._reading.InputError`. A folder of outputs is written by
:func:`staged_output_dir`: all files at once (locked, signals held) or none;
:func:`signals_as_interrupts` turns SIGTERM and SIGHUP into the same cleanup as Ctrl-C.
:func:`dumps` writes JSON (NumPy values, NaN as null).

Files in (R's tables, labels) are :mod:`predstab._core._reading`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ._html import escape, frame_html, page, png_data_uri, render
from ._reading import InputError

__all__ = [
    "check_output_file",
    "check_output_dir",
    "make_output_dir",
    "atomic_write",
    "write_text",
    "write_figure",
    "fresh_directory",
    "staged_output_dir",
    "COMMITTED",
    "signals_as_interrupts",
    "Interrupted",
    "dumps",
    "write_report",
    "report_beside",
    "REPORT",
]


def _probe_writable(folder, *, shown) -> None:
    """Create and remove a file in ``folder``: the only test that also catches /proc, read-only
    mounts and root's unwritable places (``os.access`` says yes to root everywhere). Signals
    wait while the probe exists, so an interrupt never leaves it behind."""
    with _signals_blocked():
        while True:
            probe = Path(folder) / f".predstab-probe-{secrets.token_hex(4)}"
            try:
                fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                continue  # a file of that name (never touched): another name
            except OSError as exc:
                raise InputError(f"cannot write to {shown}: {exc.strerror or exc}") from None
            break
        os.close(fd)
        with contextlib.suppress(OSError):
            probe.unlink()


def _kind(mode) -> str:
    """What a non-regular file is, in words (for messages)."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _lstat(path):
    """``os.lstat(path)`` (a symbolic link itself, not what it points to), or None if nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a parent is a file: reported by _check_parent


def _refuse_non_regular(path, shown) -> os.stat_result | None:
    """The lstat of ``path``; an :class:`InputError` when it is anything but a regular file or
    nothing: predstab never replaces a device, a FIFO, a socket or a symbolic link (not even a
    dangling one), with or without ``--force``."""
    st = _lstat(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = _kind(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            what += f" (to '{os.readlink(path)}')"
        raise InputError(f"{shown} is {what}; predstab writes only regular files and never replaces "
                         "anything else (also not with --force): give another path")
    return st


def _refuse_inputs(path, inputs, shown) -> None:
    """An :class:`InputError` when ``path`` is one of the ``inputs`` (``{description: path}``)."""
    for what, source in (inputs or {}).items():
        if source is None:
            continue
        with contextlib.suppress(OSError):
            if os.path.samefile(path, source):
                raise InputError(f"{shown} is the input {what} '{source}'; predstab never overwrites "
                                 "its input (also not with --force): give another path")


def check_output_file(path, *, force=False, option="--out", inputs=None) -> Path:
    """Check, before any computing, that ``path`` can be written; return it as a Path.

    Parameters
    ----------
    inputs : dict, optional
        ``{description: path}`` of the files the command reads; none of them may be ``path``.

    Raises
    ------
    InputError
        ``path`` exists and ``force`` is False ("exists; use --force"), is a folder, a symbolic
        link (also a dangling one), a device, a FIFO or a socket (never replaced, not even with
        ``force``), is one of ``inputs``, its parent folder does not exist (it is never created
        silently) or nothing can be written there.

    Examples
    --------
    >>> check_output_file("/no/such/folder/out.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    predstab._core._gate.InputError: --out '/no/such/folder/out.csv': the folder '/no/such/folder' ...
    """
    path = Path(path)
    st = _lstat(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{option} '{path}' is a folder; give a file name")
    _refuse_non_regular(path, f"{option} '{path}'")
    _refuse_inputs(path, inputs, f"{option} '{path}'")
    if st is not None and not force:
        raise InputError(f"'{path}' already exists; use --force to overwrite it")
    _check_parent(path, option, "predstab does not create folders for output files")
    return path


def check_output_dir(path, *, force=False, option="--out", names=(), inputs=None) -> Path:
    """Check, before any computing, that ``path`` can be used as an output folder; return it.

    One rule for every command that writes a folder (``predstab tune``, ``predstab demo``):

    - a folder that does not exist is created (by :func:`staged_output_dir`) when its parent
      exists; a missing parent is an error, never created silently;
    - an existing *empty* folder is used as it is;
    - an existing folder that holds files is refused unless ``force`` (then files of the same
      names are replaced, others are left alone); the message names the first free
      ``path-2``, ``path-3``, ... to use instead;
    - a file of that name, a dangling symbolic link, or a place where nothing can be written
      (``/proc/x``) is an error;
    - an entry of the folder named as one of the outputs (``names``) that is not a regular file
      (a folder, a FIFO, a link), or that is one of the ``inputs`` (``{description: path}``),
      is an error, also with ``force``.

    Raises
    ------
    InputError
    """
    path = Path(path)
    st = _lstat(path)
    if st is not None and stat.S_ISLNK(st.st_mode) and not path.exists():
        raise InputError(f"{option} '{path}' is a dangling symbolic link (to '{os.readlink(path)}'); "
                         "give an existing folder or a new name")
    if path.exists():
        if not path.is_dir():
            raise InputError(f"{option} '{path}' is a file, not a folder")
        for name in names:
            _refuse_non_regular(path / name, f"{option} '{path}': '{path / name}'")
            _refuse_inputs(path / name, inputs, f"{option} '{path}': '{path / name}'")
        if any(path.iterdir()) and not force:
            k = 2
            while Path(f"{path}-{k}").exists():
                k += 1
            raise InputError(f"{option} '{path}' already holds files; use --force to write into it "
                             f"(files of the same names are replaced) or choose a new folder, e.g. "
                             f"--out {path}-{k}")
        _probe_writable(path, shown=f"{option} '{path}'")
        return path
    _check_parent(path, option, "predstab creates only the output folder itself, not its parents")
    return path


def _check_parent(path, option, why_not_created):
    """The folder an output goes into must exist (it is never created) and take a file."""
    parent = path.parent
    if not parent.exists():
        raise InputError(f"{option} '{path}': the folder '{parent}' does not exist; create it first "
                         f"({why_not_created})")
    if not parent.is_dir():
        raise InputError(f"{option} '{path}': '{parent}' is not a folder")
    _probe_writable(parent, shown=f"{option} '{path}'")


def make_output_dir(path, *, force=False, option="--out") -> Path:
    """:func:`check_output_dir`, then create the folder (not its parents) if it is missing."""
    path = check_output_dir(path, force=force, option=option)
    path.mkdir(exist_ok=True)
    return path


def _umask() -> int:
    """The process's umask (read by setting it, the only way, and setting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode_for_new_file() -> int:
    """The mode :func:`open` gives a new file: 0o666 minus the process's umask."""
    return 0o666 & ~_umask()


def atomic_write(path, write: Callable[[Path], None], *, force=False) -> Path:
    """Write ``path`` through ``write(tmp_path)`` and move it into place atomically.

    The temporary file lives in the same directory (so :func:`os.replace` is atomic) and is
    removed if ``write`` fails or is interrupted, so no half-written output is ever left. It is
    created with the permissions :func:`open` would give (``0o666`` minus the umask), or the
    permission bits of the file it replaces (without its set-user-ID, set-group-ID and sticky
    bits) and, where the process may, that file's owner and group. A missing parent folder is
    created only when its own parent exists; check paths first with :func:`check_output_file`
    / :func:`check_output_dir`.

    Raises
    ------
    InputError
        ``path`` exists and ``force`` is False, is anything but a regular file (a symbolic
        link, also a dangling one, a device, a FIFO: never replaced), or its folder cannot be made.
    """
    path = Path(path)
    old = _refuse_non_regular(path, f"'{path}'")
    if old is not None and not force:
        raise InputError(f"'{path}' already exists; use --force to overwrite it")
    if not path.parent.exists():
        if not path.parent.parent.exists():
            raise InputError(f"'{path}': the folder '{path.parent.parent}' does not exist; create it first")
        path.parent.mkdir()
    mode = stat.S_IMODE(old.st_mode) & 0o777 if old is not None else _mode_for_new_file()
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp{path.suffix}"
        try:
            fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            continue
        break
    os.close(fd)
    try:
        if old is not None:
            with contextlib.suppress(OSError):  # only root (or the owner, for a group) may
                os.chown(tmp, old.st_uid, old.st_gid)
        os.chmod(tmp, mode)
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
    """Return ``(directory, renamed)``: ``path`` itself if it is new, empty (or ``force``), else
    the first free ``path-2``, ``path-3``, ... so earlier results are never touched.

    Kept for callers written before :func:`check_output_dir`, which is the rule the CLI follows
    (refuse a folder holding files, naming the free name). Missing parents are never created.
    """
    path = Path(path)
    if force or not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return make_output_dir(path, force=True), False
    k = 2
    while Path(f"{path}-{k}").exists():
        k += 1
    return make_output_dir(Path(f"{path}-{k}")), True


@contextlib.contextmanager
def _signals_blocked():
    """Hold SIGINT, SIGTERM and SIGHUP back until the block ends (main thread only).

    Python runs signal handlers in the main thread whichever thread the operating system
    delivers a signal to, so masking (``pthread_sigmask``) the main thread is not enough when
    threads exist (joblib, BLAS): the handlers themselves are swapped for one that notes the
    signal; at the end the previous handler gets it (``SIG_DFL``: the signal is raised again)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    previous = {sig: signal.signal(sig, lambda signum, frame: pending.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        if pending:
            old = previous[pending[0]]
            if callable(old):
                old(pending[0], None)
            elif old == signal.SIG_DFL:
                signal.raise_signal(pending[0])


@contextlib.contextmanager
def _locked(folder):
    """An exclusive :func:`fcntl.flock` on ``folder`` itself (no lock file is left behind)."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


COMMITTED: list = []  # folders staged_output_dir has put in place in this process (the CLI's message)


@contextlib.contextmanager
def staged_output_dir(path, *, force=False, option="--out", names=(), inputs=None):
    """Yield a hidden temporary folder to write the outputs ``names`` into; on success, put them
    into ``path`` at once, so an output folder is always complete and from one run, or absent.

    ``path`` is checked first by :func:`check_output_dir` (the same rule). The files are
    written into a new hidden folder (``.NAME.*.tmp``, beside ``path`` when ``path`` is new,
    inside it when it exists). When the block ends without an error, a new ``path`` is that
    folder renamed (:func:`os.rename`, atomic); into an existing folder every file is moved with
    :func:`os.replace`, and any of ``names`` the run did not write (an earlier run's output) is
    removed, while the folder is locked (:func:`fcntl.flock`, so two runs into one folder never
    mix their files) and SIGINT / SIGTERM / SIGHUP wait. Other files are left alone. On any
    error or interrupt (Ctrl-C, SIGTERM turned into :class:`KeyboardInterrupt` by the CLI) the
    hidden folder is removed and ``path`` is as it was.
    """
    path = check_output_dir(path, force=force, option=option, names=names, inputs=inputs)
    stage = None
    try:
        # a signal between mkdtemp and the assignment would leave the hidden folder behind:
        # it waits until ``stage`` names the folder to remove
        with _signals_blocked():
            stage = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp",
                                          dir=path if path.is_dir() else path.parent))
        yield stage
        with _signals_blocked():
            _commit(stage, path, force=force, option=option, names=names, inputs=inputs)
            COMMITTED.append(path)  # a signal held back now arrives after a complete output
    finally:
        if stage is not None:
            with _signals_blocked():  # an interrupt during the removal would leave part of it
                shutil.rmtree(stage, ignore_errors=True)  # nothing is left once the files moved


def _commit(stage, path, *, force, option, names, inputs):
    if stage.parent != path:  # a new folder: rename the whole stage, unless one appeared meanwhile
        os.chmod(stage, 0o777 & ~_umask())
        try:
            os.rename(stage, path)
            return
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    with _locked(path):
        # what may have changed while computing: checked again under the lock
        check_output_dir(path, force=True, option=option, names=names, inputs=inputs)
        written = sorted(entry.name for entry in stage.iterdir())
        if not force and any(entry.name != stage.name for entry in path.iterdir()):
            raise InputError(f"{option} '{path}' received files from another run while this one was "
                             "computing; nothing was written (use --force to replace them)")
        for name in written:
            os.replace(stage / name, path / name)
        for name in set(names) - set(written):
            with contextlib.suppress(FileNotFoundError):
                (path / name).unlink()
        stage.rmdir()


class Interrupted(KeyboardInterrupt):
    """A termination signal (SIGTERM, SIGHUP) turned into an exception, so that the same cleanup
    as for Ctrl-C runs; ``signum`` says which (the CLI exits with ``128 + signum``)."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def signals_as_interrupts():
    """Within the block, SIGTERM and SIGHUP raise :class:`Interrupted` (Ctrl-C already raises
    :class:`KeyboardInterrupt`), so temporary files and folders are removed. Only in the main
    thread (elsewhere nothing changes); the previous handlers are put back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)



# ----------------------------------------------------------------------------- JSON
def _json_default(value):
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, np.ndarray):
        return _clean(value.tolist())  # NaN inside an array is null too
    return str(value)


def _clean(v):
    """``v`` with non-finite floats as None, dict keys as text and tuples as lists."""
    if isinstance(v, float) and not np.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def dumps(obj) -> str:
    """JSON text of ``obj`` (NumPy scalars and arrays allowed; NaN becomes null)."""
    import json

    return json.dumps(_clean(obj), indent=2, default=_json_default) + "\n"


# ----------------------------------------------------------------------------- report.html
REPORT = "report.html"  # the page beside every CLI output: what the run printed, drew and wrote
_VERSIONS = ("predstab", "numpy", "scipy", "pandas", "scikit-learn", "matplotlib")


def _versions() -> str:
    import platform
    from importlib import metadata

    found = []
    for name in _VERSIONS:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return f"Python {platform.python_version()}, " + ", ".join(found)


def report_beside(path) -> Path:
    """The report of a command whose ``--out`` is one file: ``NAME.report.html`` beside ``NAME.csv``
    (two outputs in one folder never share a report)."""
    path = Path(path)
    return path.with_name(f"{path.stem}.{REPORT}")


def write_report(path, *, title, command, text, results=(), figures=(), reading=(), warnings=(),
                 files=(), force=False) -> Path:
    """Atomically write ``report.html``: one self-contained page of a CLI run.

    The page holds, in this order: how to read the run (``reading``, sentences), the warnings
    the run gave, every figure (``figures``: ``(caption, path of a PNG)``, embedded as base64),
    every result (:func:`predstab._core._html.render`, with its own figure when no file holds
    one: ``results`` are ``(result, draw)`` pairs), what the terminal printed (``text``), the
    files written beside it, and the command and the versions that produced it. Inline CSS,
    no script, nothing fetched from outside the page.
    """
    sections = []
    if reading:
        sections.append(("How to read it", "".join(f"<p>{escape(s)}</p>" for s in reading)))
    if warnings:
        boxes = "".join(f'<div class="warn">&#9888; {escape(w)}</div>' for w in warnings)
        sections.append(("Warnings", boxes))
    pictures = [f'<figure><img alt="{escape(caption)}" src="{png_data_uri(Path(png).read_bytes())}">'
                f"<figcaption>{escape(caption)}</figcaption></figure>" for caption, png in figures]
    if pictures:
        sections.append(("Figures", "".join(pictures)))
    for res, draw in results:
        shown = (frame_html(res, caption="table") if hasattr(res, "to_csv")  # a pandas frame
                 else render(res, figure=draw, text=False))
        sections.append((f"Result: {type(res).__name__}", f'<div class="predstab">{shown}</div>'))
    sections.append(("What the terminal printed", f"<pre>{escape(text.rstrip())}</pre>"))
    if files:
        sections.append(("Files", "<ul>" + "".join(f"<li>{escape(f)}</li>" for f in files) + "</ul>"))
    import datetime

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sections.append(("Command and versions", f"<pre>{escape(command)}</pre><p>{escape(_versions())}; "
                                             f"written {escape(now)}</p>"))
    return write_text(path, page(title, sections), force=force)
