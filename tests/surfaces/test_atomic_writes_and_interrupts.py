"""Interrupts and overwrites lose nothing: the command line's atomic writes.

- ``KeyboardInterrupt`` during a CLI run leaves no half-written (or temporary) file, and an
  existing output survives an interrupted ``--force`` rewrite;
- the CLI refuses to overwrite without ``--force`` and writes through a temporary file;
- malformed input files are reported with their line and column.

(Signals sent to the installed command, concurrent runs and output folders:
test_cli_output.py.)
"""

import os
import pathlib

import numpy as np
import pandas as pd
import pytest

from tests.surfaces._cli import run as _run


def _stability_args(folder, out, *extra):
    return ("stability", folder / "pred.csv", "--training-observations", folder / "train.csv",
            "--scale", "metric", "--out", out, *extra)


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


def _interrupt_midway(monkeypatch):
    """Make every text write put half its content on disk, then raise KeyboardInterrupt."""
    def half_then_interrupt(self, text, *args, **kwargs):
        with open(self, "w", encoding="utf-8") as handle:
            handle.write(text[: len(text) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(pathlib.Path, "write_text", half_then_interrupt)


def test_keyboard_interrupt_leaves_no_half_written_file(stability_files, monkeypatch, capsys):
    before = _listing(stability_files)
    _interrupt_midway(monkeypatch)
    code, _, err = _run(capsys, *_stability_args(stability_files, stability_files / "per_object.csv"))
    assert code == 130 and "interrupted" in err
    # neither the output nor its temporary file is left behind
    assert _listing(stability_files) == before


def test_interrupted_forced_rewrite_keeps_the_old_file(stability_files, monkeypatch, capsys):
    out = stability_files / "per_object.csv"
    out.write_text("old results\n", encoding="utf-8")
    before = _listing(stability_files)
    _interrupt_midway(monkeypatch)
    code, _, _ = _run(capsys, *_stability_args(stability_files, out, "--force"))
    assert code == 130
    assert _listing(stability_files) == before
    assert open(out, encoding="utf-8").read() == "old results\n"


def test_interrupt_while_fitting_writes_nothing(tmp_path, monkeypatch, capsys):
    from predstab import _demo

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_demo, "compute", interrupted)
    code, _, err = _run(capsys, "demo", "--quick", "--quiet", "--out", tmp_path / "run")
    assert code == 130 and "interrupted" in err
    assert not (tmp_path / "run").exists() or _listing(tmp_path / "run") == []


def test_refuses_to_overwrite_without_force(stability_files, capsys):
    out = stability_files / "per_object.csv"
    out.write_text("keep me\n", encoding="utf-8")
    code, _, err = _run(capsys, *_stability_args(stability_files, out))
    assert code == 2 and "already exists" in err and "--force" in err
    assert open(out, encoding="utf-8").read() == "keep me\n"
    code, _, _ = _run(capsys, *_stability_args(stability_files, out, "--force"))
    assert code == 0
    table = pd.read_csv(out)
    assert list(table.columns) == ["object", "stability", "ci_low", "ci_high", "observed_instability",
                                   "n_predictions"] and len(table) == 8  # the result's per-object frame


def test_writes_through_a_temporary_file_and_replace(stability_files, monkeypatch, capsys):
    calls = []
    real_replace = os.replace

    def recording_replace(src, dst):
        calls.append((pathlib.Path(src), pathlib.Path(dst), pathlib.Path(src).read_text(encoding="utf-8")))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", recording_replace)
    out = stability_files / "per_object.csv"
    assert _run(capsys, *_stability_args(stability_files, out))[0] == 0
    (src, dst, content), = [c for c in calls if c[1] == out]  # (and per_object.report.html beside it)
    assert [c[1].name for c in calls] == ["per_object.csv", "per_object.report.html"]
    # the complete content was in a temporary file of the same directory before the rename
    assert dst == out and src.parent == out.parent and src != out
    assert content == out.read_text(encoding="utf-8")


def test_compare_plot_refuses_to_overwrite_without_force(tmp_path, capsys):
    scores = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 3)), columns=["A", "B", "C"])
    scores.to_csv(tmp_path / "scores.csv", index=False)
    plot = tmp_path / "cd.png"
    plot.write_bytes(b"not a png")
    code, _, err = _run(capsys, "compare", tmp_path / "scores.csv", "--test", "friedman", "--plot", plot)
    assert code == 2 and "already exists" in err
    assert plot.read_bytes() == b"not a png"


@pytest.mark.parametrize("content, fragments", [
    ("fit0,fit1,fit2\n1.0,2.0,1.5\n2.0,abc,2.5\n", ["line 3", "column 'fit1'", "'abc'"]),
    ("fit0,fit1,fit2\n1.0,2.0,1.5\n2.0,2.5,2.0\n3.0,3.1,3.2,9.9\n", ["line 4",
                                                                      "4 fields where line 2 has 3"]),
    ("fit0,fit1,fit2\n1.0,2.0,1.5\n2.0,2.5,inf\n", ["line 3", "column 'fit2'", "infinite"]),
    ("", ["empty"]),
])
def test_malformed_input_files_are_reported_with_line_and_column(tmp_path, capsys, content, fragments):
    (tmp_path / "pred.csv").write_text(content, encoding="utf-8")
    pd.DataFrame({"y": [1.0, 2.0, 3.0]}).to_csv(tmp_path / "train.csv", index=False)
    code, _, err = _run(capsys, "stability", tmp_path / "pred.csv", "--training-observations",
                        tmp_path / "train.csv", "--scale", "metric")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "pred.csv" in err
    for fragment in fragments:
        assert fragment in err, err


def test_non_utf8_input_names_the_byte(tmp_path, capsys):
    (tmp_path / "ratings.csv").write_bytes(b"r1,r2\n1,2\n\xff\xfe,3\n")
    code, _, err = _run(capsys, "agree", tmp_path / "ratings.csv", "--measure", "icc")
    assert code == 2 and "UTF-8" in err and "byte" in err
