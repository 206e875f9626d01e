"""Issue 22, items 10-12: what the command line writes never costs a user a file.

The tests run the installed ``predstab`` command (tests/surfaces/_cli.py), but for a few checks
of what a command writes, which run in this process (``predstab_main``). The interrupt tests
start a small real ``tune`` run and send the signal once its output has begun (the hidden
staging folder, or on older code any output, has appeared); nothing is faked.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predstab._core import _writing
from tests.surfaces._cli import _SCRIPT, cli_env, one_line_error, predstab_cli, predstab_main

OUTPUTS = ("per_object.png", "report.html", "stability.csv", "stability.json", "stability.png")
SMALL = ["--grid", "2,4,8", "--repeats", "2", "--resamples", "0", "--quiet"]


def _tune(train_csv, out, *extra):
    return [_SCRIPT, "tune", str(train_csv), "--target", "y", *SMALL, "--out", str(out), *extra]


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir())}


# --------------------------------------------------------------------------- item 10
@pytest.mark.slow
def test_force_never_replaces_a_fifo_a_device_or_a_link(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    kept = tmp_path / "kept.csv"
    kept.write_text("the user's file")
    link = tmp_path / "link.csv"
    link.symlink_to(kept)
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "nowhere.csv")
    cases = {fifo: "named pipe (FIFO)", link: "symbolic link", dangling: "symbolic link"}
    if os.geteuid() == 0:  # as root, --out /dev/null --force replaced /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        cases[device] = "character device"
    for target, kind in cases.items():  # a dangling link was replaced even without --force
        before = os.lstat(target)
        force = [] if target == dangling else ["--force"]
        run = predstab_cli if target == fifo else predstab_main  # the installed command once
        proc = run("power", "seeds", "--effect", "0.5", "--out", target, *force)
        one_line_error(proc, f"--out '{target}' is a {kind}", "never replaces")
        after = os.lstat(target)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert kept.read_text() == "the user's file" and not (tmp_path / "nowhere.csv").exists()


@pytest.mark.slow
def test_force_never_overwrites_an_input_file(tmp_path, train_csv):
    project = tmp_path / "proj"
    project.mkdir()
    source = project / "stability.csv"
    source.write_bytes(train_csv.read_bytes())
    # refused before fitting: this grid would fit for minutes, past the run's time-out
    slow = ["--grid", "2,4,20000", "--repeats", "20", "--resamples", "0", "--quiet"]
    proc = predstab_cli("tune", source, "--target", "y", "--out", project, "--force", *slow, timeout=60)
    one_line_error(proc, f"'{source}' is the input DATA", "never overwrites")
    assert source.read_bytes() == train_csv.read_bytes() and sorted(os.listdir(project)) == ["stability.csv"]
    # a single output file: PREDICTIONS given as its own --out
    pred = tmp_path / "pred.csv"
    pd.DataFrame(np.arange(12.0).reshape(6, 2)).to_csv(pred, index=False)
    before = pred.read_bytes()
    proc = predstab_main("stability", pred, "--training-observations", train_csv, "--column", "y", "--scale",
                        "metric", "--out", pred, "--force")
    one_line_error(proc, f"--out '{pred}' is the input PREDICTIONS")
    assert pred.read_bytes() == before


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_a_replaced_file_keeps_owner_and_group_and_drops_setuid(tmp_path):
    target = tmp_path / "seeds.csv"
    target.write_text("old")
    os.chown(target, 4321, 4322)
    target.chmod(0o4750)
    proc = predstab_cli("power", "seeds", "--effect", "0.5", "--out", target, "--force")
    assert proc.returncode == 0, proc.stderr
    st = target.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o750)
    assert target.read_text().startswith("d,n_per_arm,power\n0.5,64,")  # 64 seeds: power.t.test


# --------------------------------------------------------------------------- item 12
@pytest.mark.slow
def test_destination_problems_are_found_before_fitting(tmp_path, train_csv, monkeypatch):
    # a grid that would fit for many minutes: the refusal must come first (the timeout only bounds a
    # command that started fitting; importing scikit-learn takes seconds on a loaded machine)
    slow = ["--grid", "2,4,20000", "--repeats", "20", "--resamples", "0", "--quiet"]
    dangling = tmp_path / "out"
    dangling.symlink_to(tmp_path / "gone" / "deeper")
    proc = predstab_cli("tune", train_csv, "--target", "y", *slow, "--out", dangling, timeout=120)
    one_line_error(proc, f"--out '{dangling}' is a dangling symbolic link")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "stability.csv").mkdir()
    # the same check in this process, where any fit fails the run (exit 1, not the refusal's 2)
    from sklearn.ensemble._forest import BaseForest
    from sklearn.tree._classes import BaseDecisionTree  # (each tree's fit calls its _fit)

    def no_fit(*args, **kwargs):
        raise AssertionError("fitting began before the output folder was checked")

    monkeypatch.setattr(BaseForest, "fit", no_fit)
    monkeypatch.setattr(BaseDecisionTree, "_fit", no_fit)
    proc = predstab_main("tune", train_csv, "--target", "y", *slow, "--out", folder, "--force")
    one_line_error(proc, f"'{folder / 'stability.csv'}' is a folder", "never replaces")
    assert sorted(os.listdir(folder)) == ["stability.csv"] and (folder / "stability.csv").is_dir()


# --------------------------------------------------------------------------- item 11
def _entries(parent, out):
    return set(parent.iterdir()) | (set(out.iterdir()) if out.is_dir() else set())


def _started_output(parent, out, earlier):
    """Anything new of this run's output on disk: the hidden staging folder (beside ``out`` or in
    it) or, as older code wrote, a file in ``out`` (or a new ``out``), or a changed file."""
    news = _entries(parent, out) - earlier
    changed = [p for p in earlier if p.is_file() and p.stat().st_mtime_ns > _START[0]]
    return [p for p in news if p != out] + changed


_START = [0]


def _interrupt_once_output_begins(argv, parent, out, signum, inputs):
    earlier = _entries(parent, out)
    _START[0] = time.time_ns()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if _started_output(parent, out, earlier):
            proc.send_signal(signum)
            break
        time.sleep(0.001)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_while_writing_leaves_no_output(tmp_path, train_csv, signum, code):
    inputs = {train_csv.name}
    out = tmp_path / "tuned"
    for _ in range(3):  # the run may finish before the signal arrives: try again
        rc, err = _interrupt_once_output_begins(_tune(train_csv, out), tmp_path, out, signum, inputs)
        if rc != 0:
            break
        for p in out.iterdir():
            p.unlink()
        out.rmdir()
    assert rc == code, err
    assert "no partial output was written" in err
    assert sorted(os.listdir(tmp_path)) == [train_csv.name]  # no folder, no hidden leftovers


@pytest.mark.slow
def test_an_interrupted_forced_rerun_keeps_the_earlier_folder(tmp_path, train_csv):
    out = tmp_path / "tuned"
    first = predstab_main(*_tune(train_csv, out, "--seed", "1")[1:])  # the earlier run: in this process
    assert first.returncode == 0, first.stderr
    before = _snapshot(out)
    assert sorted(before) == list(OUTPUTS)
    inputs = {train_csv.name}
    for _ in range(3):
        rc, err = _interrupt_once_output_begins(_tune(train_csv, out, "--seed", "2", "--force"), tmp_path,
                                                out, signal.SIGTERM, inputs)
        if rc != 0:
            break
        out_json = json.loads((out / "stability.json").read_text())
        assert out_json["seed"] == 2
        for p in out.iterdir():
            p.unlink()
        out.rmdir()
        rerun = predstab_main(*_tune(train_csv, out, "--seed", "1")[1:])
        assert rerun.returncode == 0
        before = _snapshot(out)
    assert rc == 143, err
    assert sorted(os.listdir(tmp_path)) == [train_csv.name, "tuned"]
    assert sorted(os.listdir(out)) == list(OUTPUTS)
    if "after its output was written in full" in err:  # the signal came while the files were moved in
        assert json.loads((out / "stability.json").read_text())["seed"] == 2
        assert all(_snapshot(out)[name] != before[name] for name in ("stability.csv", "stability.png"))
    else:
        assert "no partial output was written" in err and _snapshot(out) == before


@pytest.mark.slow
def test_concurrent_runs_never_mix_their_files(tmp_path, train_csv):
    """A run holds the output folder's lock (flock) while it moves its files in: a second run
    waits with its complete output staged and the folder untouched, then replaces all of it."""
    out = tmp_path / "tuned"
    earlier = predstab_main(*_tune(train_csv, out, "--seed", "1")[1:])  # the earlier run, in-process
    assert earlier.returncode == 0
    before = _snapshot(out)
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as another run committing its files would hold it
    try:
        proc = subprocess.Popen(_tune(train_csv, out, "--seed", "2", "--force"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=cli_env())
        deadline = time.monotonic() + 60
        staged = []
        while time.monotonic() < deadline and proc.poll() is None:
            staged = [p for p in out.iterdir() if p.name.startswith(".tuned.") and p.is_dir()]
            if staged and sorted(os.listdir(staged[0])) == list(OUTPUTS):
                break
            time.sleep(0.02)
        assert staged and sorted(os.listdir(staged[0])) == list(OUTPUTS), proc.communicate()
        time.sleep(0.3)
        assert proc.poll() is None  # waiting for the lock
        visible = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
        assert visible == before  # the waiting run has touched nothing
    finally:
        os.close(fd)  # releases the lock
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert sorted(os.listdir(out)) == list(OUTPUTS)
    assert json.loads((out / "stability.json").read_text())["seed"] == 2
    assert all((out / name).read_bytes() != before[name] for name in ("stability.csv", "stability.png"))


@pytest.mark.slow
def test_output_folder_is_complete_when_stdout_is_closed_early(tmp_path, train_csv):
    out = tmp_path / "tuned"
    proc = predstab_cli("tune", train_csv, "--target", "y", *SMALL, "--out", out, shell_suffix="| head -1")
    assert proc.returncode == 0 and proc.stdout.startswith("Data: train.csv: y\n"), proc.stderr
    assert sorted(os.listdir(out)) == list(OUTPUTS)
    assert sorted(os.listdir(tmp_path)) == [train_csv.name, "tuned"]


# --------------------------------------------------------------------------- the helpers themselves
def test_staged_output_dir_removes_its_folder_on_any_error(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "a.csv").write_text("old")
    with (pytest.raises(KeyboardInterrupt),
          _writing.staged_output_dir(out, force=True, names=("a.csv",)) as stage):
        (stage / "a.csv").write_text("new, half")
        raise KeyboardInterrupt
    assert _snapshot(out) == {"a.csv": b"old"}
    # a clean end: every file in, an earlier output this run did not write removed, others kept
    (out / "b.csv").write_text("an earlier run's")
    (out / "notes.txt").write_text("the user's")
    with _writing.staged_output_dir(out, force=True, names=("a.csv", "b.csv")) as stage:
        (stage / "a.csv").write_text("new")
    assert _snapshot(out) == {"a.csv": b"new", "notes.txt": b"the user's"}
