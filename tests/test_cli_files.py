"""Files in and out, run as a user runs them: the installed ``predstab`` command on real files.

Issue 13, items 1-4: headerless CSVs, output permissions, output paths checked before any
computing, one rule for output folders, and ``predstab ... | head``.
"""

from __future__ import annotations

import stat
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import _io
from tests._cli import one_line_error, predstab_cli


@pytest.fixture
def categorical_files(tmp_path):
    rng = np.random.default_rng(13)
    pred = rng.integers(1, 4, size=(30, 5))
    y = rng.integers(1, 4, size=40)
    np.savetxt(tmp_path / "p.csv", pred, fmt="%d", delimiter=",")          # no header row
    np.savetxt(tmp_path / "y.csv", y, fmt="%d")
    pd.DataFrame(pred, columns=[f"r{j}" for j in range(5)]).to_csv(tmp_path / "p_named.csv", index=False)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y_named.csv", index=False)
    return tmp_path, pred, y


# --------------------------------------------------------------------------- item 1: headers
def test_headerless_csv_keeps_its_first_row_and_says_so(categorical_files):
    folder, pred, y = categorical_files
    expected = predstab.phi(pred, y, scale="categorical")
    proc = predstab_cli("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "categorical")
    assert proc.returncode == 0, proc.stderr
    assert str(expected) in proc.stdout  # all 30 objects and all 40 training responses
    assert "note:" in proc.stderr and "read as data" in proc.stderr and "--header" in proc.stderr
    named = predstab_cli("stability", folder / "p_named.csv", "--training-observations",
                         folder / "y_named.csv",
                         "--scale", "categorical")
    assert named.stdout == proc.stdout and named.stderr == ""


def test_header_forces_the_first_line_to_be_names(categorical_files):
    folder, pred, y = categorical_files
    proc = predstab_cli("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "categorical", "--header")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.phi(pred[1:], y[1:], scale="categorical")) in proc.stdout
    assert proc.stderr == ""
    # --no-header on named files reads the names as a data row: the refit names become
    # predictions that the training responses never take
    proc = predstab_cli("stability", folder / "p_named.csv", "--training-observations",
                         folder / "y_named.csv",
                        "--scale", "categorical", "--no-header")
    one_line_error(proc, "['r0', 'r1', 'r2', 'r3', 'r4'], absent from `training_observations`")


def test_read_table_header_parameter(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0.5,1.5,NA\n2,3,4\n")
    with pytest.warns(_io.InputNote, match="read as data"):
        frame = _io.read_table(path)
    assert frame.shape == (2, 3) and list(frame.columns) == ["V1", "V2", "V3"]
    assert np.isnan(frame.iloc[0, 2]) and frame.iloc[1, 0] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _io.read_table(path, header=False).shape == (2, 3)
        assert list(_io.read_table(path, header=True).columns) == ["0.5", "1.5", "NA"]
        pd.DataFrame(np.eye(3)).to_csv(tmp_path / "eye.csv", index=False)
        assert _io.read_table(tmp_path / "eye.csv", header=True).shape == (3, 3)
        pd.DataFrame(np.eye(3), index=["a", "b", "c"]).to_csv(tmp_path / "named.csv")  # ",0,1,2"
        assert list(_io.read_table(tmp_path / "named.csv").index) == ["a", "b", "c"]
    # the header pandas writes for a NumPy matrix (0..k-1) is read as one, and a note says so
    with pytest.warns(_io.InputNote, match=r"line 1 \('0,1,...,2'\) is read as the column numbers pandas"):
        assert _io.read_table(tmp_path / "eye.csv").shape == (3, 3)
    with pytest.raises(TypeError, match="`header`"):
        _io.read_table(path, header="yes")
    assert predstab.read_table is _io.read_table  # the public name of the reader


def test_compare_and_agree_take_header_options():
    proc = predstab_cli("compare", "--help")
    assert "--header" in proc.stdout and "--no-header" in proc.stdout


# --------------------------------------------------------------------------- item 2: permissions
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_output_files_honour_the_umask(tmp_path, umask, mode):
    out = tmp_path / "seeds.csv"
    proc = predstab_cli("power", "seeds", "--effect", "0.5", "--out", out, umask=umask)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_replaced_file_keeps_its_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("one")
    target.chmod(0o640)
    _io.write_text(target, "two", force=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "two"


# --------------------------------------------------------------------------- item 3: paths first
def test_output_paths_are_checked_before_reading_or_computing(tmp_path):
    missing_input = tmp_path / "not-there.csv"  # would fail later: the output check comes first
    existing = tmp_path / "per.csv"
    existing.write_text("keep me")
    args = ["stability", missing_input, "--training-observations", missing_input, "--scale", "metric"]
    one_line_error(predstab_cli(*args, "--out", existing), "already exists", "--force")
    assert existing.read_text() == "keep me"
    one_line_error(predstab_cli(*args, "--out", "/proc/x"), "cannot write", "/proc/x")
    one_line_error(predstab_cli(*args, "--out", tmp_path / "new" / "per.csv"), "does not exist",
                   "create it first")
    assert not (tmp_path / "new").exists()  # no silent mkdir of parents
    one_line_error(predstab_cli("compare", missing_input, "--test", "friedman", "--plot",
                                tmp_path / "no" / "cd.png"), "--plot", "does not exist")
    one_line_error(predstab_cli("power", "seeds", "--effect", "0.5", "--out", existing), "already exists")


def test_check_output_dir_one_rule_for_folders(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _io.make_output_dir(empty) == empty  # an existing empty folder is used, not renamed
    new = _io.make_output_dir(tmp_path / "new")
    assert new.is_dir()
    (new / "stability.csv").write_text("x")
    with pytest.raises(_io.InputError, match=r"already holds files; use --force .* --out .*new-2"):
        _io.check_output_dir(new)
    assert _io.check_output_dir(new, force=True) == new
    with pytest.raises(_io.InputError, match="does not exist; create it first"):
        _io.check_output_dir(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()
    with pytest.raises(_io.InputError, match="cannot write"):
        _io.check_output_dir("/proc/x")
    with pytest.raises(_io.InputError, match="is a file"):
        _io.check_output_dir(new / "stability.csv")
    # the old helper follows the empty-folder rule too
    assert _io.fresh_directory(empty) == (empty, False)


# --------------------------------------------------------------------------- item 4: | head
def test_pipe_into_head_exits_quietly(tmp_path):
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(6000, 5))
    pd.DataFrame(pred, columns=list("abcde")).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"y": rng.normal(size=50)}).to_csv(tmp_path / "y.csv", index=False)
    proc = predstab_cli("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y.csv",
                        "--scale", "metric", "--per-object", shell_suffix="| head -n 2")
    assert proc.returncode == 0
    assert proc.stdout.count("\n") == 2
    assert proc.stderr == ""
