"""Run ``predstab`` as a user runs it (the installed command) or in this process (its ``main``):
the helpers every CLI test file shares."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = shutil.which("predstab", path=str(Path(sys.executable).parent)) or shutil.which("predstab")


def cli_env():
    """The environment of the installed command: this checkout's source first on the path."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))


def predstab_cli(*args, cwd=None, umask=None, shell_suffix=None, timeout=120):
    """Run the installed console script with this checkout's source first on the path."""
    if _SCRIPT is None:
        pytest.skip("the `predstab` command is not installed: pip install -e . puts it on the PATH")
    env = cli_env()
    argv = [_SCRIPT, *map(str, args)]
    preexec = (lambda: os.umask(umask)) if umask is not None else None
    if shell_suffix:
        command = " ".join(shlex.quote(a) for a in argv) + " " + shell_suffix
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=timeout)
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, preexec_fn=preexec,
                          timeout=timeout)


def run(capsys, *args):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    from predstab.cli import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, *fragments):
    """``err`` is one line (no traceback) holding every fragment, and the exit code is 2."""
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def one_line_error(proc, *fragments):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def predstab_main(*args):
    """Run ``predstab.cli.main`` in this process: the code the command runs, without the second
    or more of its start-up (Python, NumPy, pandas, scikit-learn). For checks of what a command
    reads, computes, prints and writes; what only a process shows (exit through a signal, a
    closed pipe, the umask, a terminal, the console script itself) keeps :func:`predstab_cli`,
    and every item keeps at least one run of the installed command."""
    import contextlib
    import io

    from predstab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args], stdout=out)
    return subprocess.CompletedProcess(["predstab", *map(str, args)], code, out.getvalue(), err.getvalue())
