"""Files in and out: the ``predstab`` commands on real files.

Issue 13, items 1-4: headerless CSVs, output permissions, output paths checked before any
computing, one rule for output folders, and ``predstab ... | head``.

The commands run in this process (``predstab.cli.main``, tests/surfaces/_cli.py's
``predstab_main``: what they read, compute, print and write); what only a process shows runs
the installed command: the umask it starts with and a closed pipe (``| head``).
"""

from __future__ import annotations

import os
import stat
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core import _reading, _writing
from tests.surfaces._cli import one_line_error, predstab_cli, predstab_main


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
@pytest.mark.slow
def test_headerless_csv_keeps_its_first_row_and_says_so(categorical_files):
    folder, pred, y = categorical_files
    expected = predstab.phi(pred, y, scale="categorical")
    proc = predstab_main("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "categorical")
    assert proc.returncode == 0, proc.stderr
    assert str(expected) in proc.stdout  # all 30 objects and all 40 training responses
    assert "note:" in proc.stderr and "read as data" in proc.stderr and "--header" in proc.stderr
    named = predstab_main("stability", folder / "p_named.csv", "--training-observations",
                         folder / "y_named.csv",
                         "--scale", "categorical")
    assert named.stdout == proc.stdout and named.stderr == ""


def test_header_forces_the_first_line_to_be_names(categorical_files):
    folder, pred, y = categorical_files
    proc = predstab_main("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "categorical", "--header")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.phi(pred[1:], y[1:], scale="categorical")) in proc.stdout
    assert proc.stderr == ""
    # --no-header on named files reads the names as a data row: the refit names become
    # predictions that the training responses never take
    proc = predstab_main("stability", folder / "p_named.csv", "--training-observations",
                         folder / "y_named.csv",
                        "--scale", "categorical", "--no-header")
    one_line_error(proc, f"['r0', 'r1', 'r2', 'r3', 'r4'], absent from --training-observations "
                         f"'{folder / 'y_named.csv'}'")  # the option typed, not the parameter (issue 35)


def test_read_table_header_parameter(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("0.5,1.5,NA\n2,3,4\n")
    with pytest.warns(_reading.InputNote, match="read as data"):
        frame = _reading.read_table(path)
    assert frame.shape == (2, 3) and list(frame.columns) == ["V1", "V2", "V3"]
    assert np.isnan(frame.iloc[0, 2]) and frame.iloc[1, 0] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _reading.read_table(path, header=False).shape == (2, 3)
        assert list(_reading.read_table(path, header=True).columns) == ["0.5", "1.5", "NA"]
        pd.DataFrame(np.eye(3)).to_csv(tmp_path / "eye.csv", index=False)
        assert _reading.read_table(tmp_path / "eye.csv", header=True).shape == (3, 3)
        pd.DataFrame(np.eye(3), index=["a", "b", "c"]).to_csv(tmp_path / "named.csv")  # ",0,1,2"
        assert list(_reading.read_table(tmp_path / "named.csv").index) == ["a", "b", "c"]
    # the header pandas writes for a NumPy matrix (0..k-1) is read as one, and a note says so
    with pytest.warns(_reading.InputNote,
                      match=r"line 1 \('0,1,...,2'\) is read as the column numbers pandas"):
        assert _reading.read_table(tmp_path / "eye.csv").shape == (3, 3)
    with pytest.raises(TypeError, match="`header`"):
        _reading.read_table(path, header="yes")
    assert predstab.read_table is _reading.read_table  # the public name of the reader


def test_compare_and_agree_take_header_options():
    proc = predstab_main("compare", "--help")
    assert "--header" in proc.stdout and "--no-header" in proc.stdout


# --------------------------------------------------------------------------- item 2: permissions
@pytest.mark.slow
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_output_files_honour_the_umask(tmp_path, umask, mode):
    out = tmp_path / "seeds.csv"
    if umask == 0o022:  # the installed command, started with that umask
        proc = predstab_cli("power", "seeds", "--effect", "0.5", "--out", out, umask=umask)
    else:  # main() in this process, under that umask
        previous = os.umask(umask)
        try:
            proc = predstab_main("power", "seeds", "--effect", "0.5", "--out", out)
        finally:
            os.umask(previous)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_replaced_file_keeps_its_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("one")
    target.chmod(0o640)
    _writing.write_text(target, "two", force=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "two"


# --------------------------------------------------------------------------- item 3: paths first
@pytest.mark.slow
def test_output_paths_are_checked_before_reading_or_computing(tmp_path):
    missing_input = tmp_path / "not-there.csv"  # would fail later: the output check comes first
    existing = tmp_path / "per.csv"
    existing.write_text("keep me")
    args = ["stability", missing_input, "--training-observations", missing_input, "--scale", "metric"]
    one_line_error(predstab_main(*args, "--out", existing), "already exists", "--force")
    assert existing.read_text() == "keep me"
    one_line_error(predstab_main(*args, "--out", "/proc/x"), "cannot write", "/proc/x")
    one_line_error(predstab_main(*args, "--out", tmp_path / "new" / "per.csv"), "does not exist",
                   "create it first")
    assert not (tmp_path / "new").exists()  # no silent mkdir of parents
    one_line_error(predstab_main("compare", missing_input, "--test", "friedman", "--plot",
                                tmp_path / "no" / "cd.png"), "--plot", "does not exist")
    one_line_error(predstab_main("power", "seeds", "--effect", "0.5", "--out", existing), "already exists")


def test_check_output_dir_one_rule_for_folders(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _writing.make_output_dir(empty) == empty  # an existing empty folder is used, not renamed
    new = _writing.make_output_dir(tmp_path / "new")
    assert new.is_dir()
    (new / "stability.csv").write_text("x")
    with pytest.raises(_reading.InputError, match=r"already holds files; use --force .* --out .*new-2"):
        _writing.check_output_dir(new)
    assert _writing.check_output_dir(new, force=True) == new
    with pytest.raises(_reading.InputError, match="does not exist; create it first"):
        _writing.check_output_dir(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()
    with pytest.raises(_reading.InputError, match="cannot write"):
        _writing.check_output_dir("/proc/x")
    with pytest.raises(_reading.InputError, match="is a file"):
        _writing.check_output_dir(new / "stability.csv")
    # the old helper follows the empty-folder rule too
    assert _writing.fresh_directory(empty) == (empty, False)


# --------------------------------------------------------------------------- item 4: | head
@pytest.mark.slow
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


# =========================================================================== issue 22, items 1-8
# Files as R users and spreadsheets write them, read by the commands. Every expected
# value is computed in the test from the matrix the file was written from.
def _rows(matrix, *, sep=",", dec=".", row_names=None, header=None, fmt="{:.15g}"):
    """The text of a table written as R writes it: quoted names, bare numbers, ``dec``."""
    def cell(v):
        if isinstance(v, str):
            return f'"{v}"'
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return "NA"
        return fmt.format(v).replace(".", dec)

    lines = [] if header is None else [sep.join(f'"{h}"' for h in header)]
    for i, row in enumerate(matrix):
        cells = [cell(v) for v in row]
        lines.append(sep.join(([f'"{row_names[i]}"'] if row_names is not None else []) + cells))
    return "\n".join(lines) + "\n"


@pytest.fixture
def metric_files(tmp_path):
    rng = np.random.default_rng(22)
    pred = np.round(rng.normal(size=(8, 5)) * np.array([1, .1, 3, .1, .2, .1, 2, .5])[:, None], 6)
    y = np.round(rng.normal(scale=2, size=40), 4)
    pd.DataFrame({"y": y}).to_csv(tmp_path / "y.csv", index=False)
    return tmp_path, pred, y


def _per_object_table(path):
    table = pd.read_csv(path, dtype={"object": str})
    return dict(zip(table["object"], table["stability"], strict=True))


# --------------------------------------------------------------------------- item 1: R's row names
@pytest.mark.slow
def test_r_default_row_names_name_the_objects_in_the_cli_and_in_python(metric_files):
    folder, pred, y = metric_files
    path = folder / "pred.csv"  # R: write.csv(pred), row names "1".."8"
    path.write_text(_rows(pred, header=["", *[f"V{j + 1}" for j in range(5)]],
                          row_names=[str(i + 1) for i in range(8)]))
    proc = predstab_main("stability", path, "--training-observations", folder / "y.csv", "--scale", "metric",
                        "--per-object", "--out", folder / "per.csv")
    assert proc.returncode == 0, proc.stderr
    per = predstab.phi(pred, y, scale="metric").per_object
    by_name = {str(i + 1): v for i, v in enumerate(per)}  # R's object "2" is the second row
    assert _per_object_table(folder / "per.csv") == pytest.approx(by_name, rel=1e-12)
    assert "object = row name in PREDICTIONS" in proc.stdout
    frame = predstab.read_table(path)  # Python reads the same names
    assert frame.index.tolist() == list(by_name)
    in_python = predstab.phi(frame, y).per_object_frame(sort=False)["stability"].to_dict()
    assert in_python == pytest.approx(by_name)


# --------------------------------------------------------------------------- item 2: write.csv2
@pytest.mark.slow
def test_write_csv2_files_are_read_as_read_csv2_reads_them(tmp_path):
    rng = np.random.default_rng(2)
    scores = np.round(rng.normal(size=(10, 3)) + [0.0, 0.4, 0.8], 4)
    path = tmp_path / "scores.csv"  # R: write.csv2(df, row.names = FALSE)
    path.write_text(_rows([[f"d{i}", *row] for i, row in enumerate(scores)], sep=";", dec=",",
                          header=["dataset", "RF", "ET", "GB"]))
    proc = predstab_main("compare", path, "--test", "friedman", "--id", "dataset")
    assert proc.returncode == 0, proc.stderr
    block = proc.stdout.split("average ranks (1 = best):\n")[1].splitlines()[:3]  # "  GB: 1" lines
    ranks = {name.strip(): float(value) for name, value in (line.split(":") for line in block)}
    expected = np.asarray(predstab.compare.friedman_nemenyi(scores).average_ranks, dtype=float)
    assert ranks == pytest.approx(dict(zip(["RF", "ET", "GB"], expected, strict=True)), abs=5e-5)
    # a broken line of such a file: the error names the line and the dialect it was read in
    lines = path.read_text().splitlines()
    lines[3] += ";0,5"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(_reading.InputError, match=r"line 4: 5 fields where line 2 has 4 \(sep ';', dec ',' "
                                             r"\(R's read.csv2\)\)$"):
        _reading.read_table(path)


# --------------------------------------------------------------------------- item 3: misread lines
@pytest.mark.slow
def test_decimal_commas_in_one_column_are_refused_and_read_with_sep_and_dec(metric_files):
    folder, pred, y = metric_files
    (folder / "p.csv").write_text(_rows(pred, header=[f"r{j}" for j in range(5)]))
    (folder / "y2.csv").write_text("y\n" + "\n".join(f"{v:g}".replace(".", ",") for v in y) + "\n")
    with pytest.raises(_reading.InputError) as err:
        _reading.read_table(folder / "y2.csv", what="--training-observations")
    assert str(err.value) == (
        f"--training-observations file '{folder / 'y2.csv'}', line 2: 2 fields under a header (line 1) of 1 "
        "(sep ',', dec '.' (R's read.csv)); decimal commas (1,5)? Files of R's write.csv2 are read with "
        "sep=';', dec=','; if the first column holds row names, give it an empty "
        "name in the header (as R's write.csv does)")
    (folder / "p2.csv").write_text(_rows(pred, header=[f"r{j}" for j in range(5)], sep=";", dec=","))
    proc = predstab_main("stability", folder / "p2.csv", "--training-observations", folder / "y2.csv",
                        "--scale", "metric", "--sep", ";", "--dec", ",")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.phi(pred, y, scale="metric")) in proc.stdout


@pytest.mark.slow
def test_two_unnamed_columns_where_one_is_expected_are_refused(metric_files, capsys):
    # issue 22 item 3: a headerless one-column file of decimal commas ("1,5" on every line) reads as
    # two columns 1 and 5; pooled, phi was 856.67 for 0.925. Where one column is expected
    # (--training-observations, --prediction-space) two unnamed columns are refused, naming the
    # file, the line and the ways out
    from predstab.cli import main

    folder, pred, y = metric_files
    (folder / "p.csv").write_text(_rows(pred, header=[f"r{j}" for j in range(5)]))
    (folder / "p2.csv").write_text(_rows(pred, header=[f"r{j}" for j in range(5)], sep=";", dec=","))
    (folder / "y3.csv").write_text("\n" + "\n".join(f"{v:.2f}".replace(".", ",") for v in y) + "\n")
    first = f"{y[0]:.2f}".replace(".", ",")
    message = (f"file '{folder / 'y3.csv'}', line 2: two columns without names ('{first}') where one column "
               "is expected; decimal commas (1,5)? Read the files with --sep ';' --dec ',' (R's read.csv2); "
               "or name the column to use with --column V1 or --column V2")
    proc = predstab_main("stability", folder / "p.csv", "--training-observations", folder / "y3.csv",
                        "--scale", "metric")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    note, error = proc.stderr.splitlines()  # the headerless file's note, then the refusal
    assert "note:" in note and "read as data (columns named V1..V2)" in note
    assert error == f"predstab stability: error: --training-observations {message}"
    assert main(["stability", str(folder / "p.csv"), "--prediction-space", str(folder / "y3.csv"),
                 "--scale", "metric"]) == 2
    assert capsys.readouterr().err.endswith(f"error: --prediction-space {message}\n")
    # read as one column of decimal commas, the same numbers as Python's phi of the rounded values
    assert main(["stability", str(folder / "p2.csv"), "--training-observations", str(folder / "y3.csv"),
                 "--scale", "metric", "--sep", ";", "--dec", ","]) == 0
    assert str(predstab.phi(pred, np.round(y, 2), scale="metric")) in capsys.readouterr().out
    # a column named by --column is the user's choice; a header names the columns (no refusal)
    assert main(["stability", str(folder / "p.csv"), "--training-observations", str(folder / "y3.csv"),
                 "--scale", "metric", "--column", "V2"]) == 0
    whole, cents = zip(*(f"{v:.2f}".split(".") for v in y), strict=True)
    assert str(predstab.phi(pred, np.array(cents, dtype=float), scale="metric")) in capsys.readouterr().out
    (folder / "y4.csv").write_text("a,b\n" + "\n".join(f"{v:.2f}".replace(".", ",") for v in y) + "\n")
    assert main(["stability", str(folder / "p.csv"), "--training-observations", str(folder / "y4.csv"),
                 "--scale", "metric"]) == 0
    assert "has 2 columns; it should be one column" in capsys.readouterr().err  # pooled, with a warning


def test_a_trailing_separator_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("a,b,c\n1,2,2,\n2,2,3,\n1,1,1,\n3,2,3,\n")
    one_line_error(predstab_main("agree", path, "--measure", "alpha", "--scale", "nominal"),
                   "r.csv', line 2 ends with ',' after its last value: 4 fields under a header (line 1) of 3")
    # the same without a header, and with a trailing separator on the header too
    for text, line in (("1,2,2,\n2,2,3,\n", 1), ("a,b,c,\n1,2,2,\n2,2,3,\n", 1)):
        path.write_text(text)
        with pytest.raises(_reading.InputError, match=rf"line {line} ends with ','"):
            _reading.read_table(path)


# --------------------------------------------------------------------------- item 4: first rows
@pytest.mark.slow
def test_a_headerless_binary_column_keeps_its_first_value(tmp_path):
    rng = np.random.default_rng(4)
    pred = rng.integers(0, 2, size=(20, 5))
    y = np.r_[1, rng.integers(0, 2, size=29)]
    pd.DataFrame(pred, columns=list("abcde")).to_csv(tmp_path / "p.csv", index=False)
    np.savetxt(tmp_path / "y.csv", y, fmt="%d")  # "1" first: a value, not a header
    proc = predstab_main("stability", tmp_path / "p.csv", "--training-observations", tmp_path / "y.csv",
                        "--scale", "categorical")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.phi(pred, y, scale="categorical")) in proc.stdout
    np.savetxt(tmp_path / "y0.csv", np.r_[0, y], fmt="%d")  # "0": pandas' header of a column, or a value?
    with pytest.raises(_reading.InputError,
                       match=r"y0.csv', line 1: is '0' the column numbers pandas writes.*header=False"):
        _reading.read_table(tmp_path / "y0.csv")
    assert _reading.read_table(tmp_path / "y0.csv", header=False)["V1"].tolist() == [0, *y]


def test_a_first_row_1_2_3_is_data(tmp_path):
    rng = np.random.default_rng(5)
    ratings = np.vstack([[1, 2, 3], rng.integers(1, 6, size=(14, 3))])
    np.savetxt(tmp_path / "r.csv", ratings, fmt="%d", delimiter=",")
    proc = predstab_main("agree", tmp_path / "r.csv", "--measure", "icc", "--model", "twoway")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.icc(ratings, model="twoway")) in proc.stdout
    assert "read as data" in proc.stderr


def test_an_all_missing_first_row_keeps_every_object_in_its_place(metric_files):
    folder, pred, y = metric_files
    pred = pred.copy()
    pred[0] = np.nan  # object 0 has no prediction: its row reads NA,NA,...
    (folder / "p.csv").write_text(_rows(pred.tolist()))
    proc = predstab_main("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "metric", "--out", folder / "per.csv")
    assert proc.returncode == 0, proc.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = predstab.phi(pred, y, scale="metric").per_object
    got = _per_object_table(folder / "per.csv")
    assert list(got) == ["0", *[str(i) for i in np.argsort(per[1:], kind="stable") + 1]]
    assert np.isnan(got["0"]) and [got[str(i)] for i in range(1, 8)] == pytest.approx(per[1:], rel=1e-12)


# --------------------------------------------------------------------------- item 5: byte-order mark
@pytest.mark.slow
def test_a_byte_order_mark_before_a_headerless_file_keeps_the_first_row(metric_files):
    folder, pred, y = metric_files
    (folder / "p.csv").write_text("\ufeff" + _rows(pred), encoding="utf-8")
    proc = predstab_main("stability", folder / "p.csv", "--training-observations", folder / "y.csv",
                        "--scale", "metric")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.phi(pred, y, scale="metric")) in proc.stdout


# --------------------------------------------------------------------------- item 6: one type of label
@pytest.mark.slow
def test_whole_numbers_and_text_are_one_kind_of_label(tmp_path):
    rng = np.random.default_rng(6)
    pred = rng.integers(1, 4, size=(25, 4)).astype(object)
    pred[3, 0] = None  # column r0 holds an NA: pandas read it as 1.0, 2.0, ...
    space = rng.integers(1, 4, size=30).astype(object)
    space[7] = "other"  # one text label: every label is compared as text
    pd.DataFrame(pred, columns=[f"r{j}" for j in range(4)]).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame({"y": space}).to_csv(tmp_path / "s.csv", index=False)
    proc = predstab_main("stability", tmp_path / "p.csv", "--prediction-space", tmp_path / "s.csv",
                        "--scale", "categorical")
    assert proc.returncode == 0, proc.stderr
    as_text = np.vectorize(lambda v: None if v is None else str(v), otypes=[object])
    assert str(predstab.psi(as_text(pred), as_text(space), scale="categorical")) in proc.stdout


def test_bootstrap_accuracy_with_a_text_cell_in_the_truth(tmp_path):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 60)
    a, b = np.where(rng.random(60) < 0.8, y, 1 - y), np.where(rng.random(60) < 0.65, y, 1 - y)
    truth = y.astype(object)
    truth[5] = "unknown"
    pd.DataFrame({"truth": truth, "A": a, "B": b}).to_csv(tmp_path / "s.csv", index=False)
    proc = predstab_main("compare", tmp_path / "s.csv", "--test", "bootstrap", "--truth", "truth", "--a", "A",
                        "--b", "B", "--resamples", "50")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    estimates = {row[0]: float(row[1]) for row in rows if row[:1] in (["A"], ["B"]) and row[1] != "-"}
    text = truth.astype(str)
    expected = {"A": np.mean(text == a.astype(str)), "B": np.mean(text == b.astype(str))}
    assert estimates == pytest.approx(expected, abs=5e-7)  # printed to 6 digits


def test_labels_lose_surrounding_spaces_on_both_sides(tmp_path):
    base = np.array([["yes", "yes", "no"], ["no", "no", "no"], ["yes", "yes", "yes"], ["no", "yes", "no"],
                     ["yes", "yes", "yes"], ["no", "no", "yes"]] * 3, dtype=object)
    spaced = base.copy()
    spaced[0, 1], spaced[3, 0], spaced[8, 2] = "yes ", " no", " yes "
    pd.DataFrame(spaced, columns=["a", "b", "c"]).to_csv(tmp_path / "r.csv", index=False)
    proc = predstab_main("agree", tmp_path / "r.csv", "--measure", "fleiss")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.fleiss_kappa(base)) in proc.stdout


# --------------------------------------------------------------------------- item 7: column names
@pytest.mark.slow
def test_duplicate_column_names_are_refused_where_a_name_picks_one(tmp_path):
    (tmp_path / "s.csv").write_text("A,A,B\n0.8,0.7,0.75\n0.9,0.6,0.7\n0.85,0.65,0.8\n")
    one_line_error(predstab_main("compare", tmp_path / "s.csv", "--test", "wilcoxon", "--a", "A", "--b", "B"),
                   "has 2 columns named 'A' (columns 1 and 2); give every column its own name")


def test_a_parquet_column_named_empty_is_a_column(tmp_path):
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(8)
    ratings = rng.normal(size=(12, 3)) + rng.normal(size=(12, 1)) * 2
    pd.DataFrame(ratings, columns=["", "b", "c"]).to_parquet(tmp_path / "r.parquet")
    proc = predstab_main("agree", tmp_path / "r.parquet", "--measure", "icc", "--model", "twoway")
    assert proc.returncode == 0, proc.stderr
    assert str(predstab.icc(ratings, model="twoway")) in proc.stdout


# --------------------------------------------------------------------------- item 8: line numbers
@pytest.mark.slow
def test_errors_name_the_line_of_the_file(tmp_path):
    (tmp_path / "h.csv").write_text("1.5,2\n2.5,3\nx,4\n")  # no header: the bad cell is on line 3
    proc = predstab_main("agree", tmp_path / "h.csv", "--measure", "icc", "--model", "twoway", "--no-header")
    one_line_error(proc, "h.csv', line 3, column 'V1': expected a number, got 'x'")
    # blank lines and a name written over two lines are lines of the file too
    cases = {'a,b\n\n1,2\n\n3,y\n': 5, '"a\nA","b"\n1,2\n3,y\n': 4, '"","a","b"\n"p\nq",1,2\n"r",3,y\n': 4}
    for text, line in cases.items():
        (tmp_path / "m.csv").write_text(text)
        with pytest.raises(_reading.InputError, match=rf"m.csv', line {line}, column 'b': expected a number"):
            _reading.numeric_matrix(_reading.read_table(tmp_path / "m.csv"), what="R")
