"""Files in (``predstab._core._reading``), in-process on tiny files: what a user of
``predstab ...`` relies on when a file is read.

Which first lines are read as a header, when a matrix is said to look transposed, which
targets suit a task, and error messages that name the file, line, column or option and what
was found there. Every expected value is written out by hand or re-derived in the test.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from predstab import PredstabDataWarning, PredstabOrientationWarning
from predstab._core import _gate, _reading
from predstab._core._reading import InputError, InputNote


@contextlib.contextmanager
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ----------------------------------------------------------------------------- header detection
@pytest.mark.parametrize("first_line, is_data", [
    ("1.5,2,7", True),
    ("a,b,c", False),             # names
    ("1,b,c", False),             # one name is enough for a header
    ("1.5, NA,2", True),          # " NA" (after the space) is a missing value
    ("1, 2, 3.5", True),          # spaces around numbers
    ("NA,NA,NA", True),           # a first row of missing values is data (issue 22, item 4)
    (",NA,", True),
    ("0,1,2", False),             # the header pandas writes for a NumPy matrix (0..k-1), with a note
    ("1,2,3", True),              # 1..k: pandas never writes it, R quotes its names (issue 22, item 4)
    (",0,1", False),              # pandas' header of an indexed matrix: an empty name, then 0..k-2
    (" ,0,1", False),             # that empty name padded by a space
    ("2,3,4", True),              # other whole numbers are data
    ("0,1,3", True),
    ("0,2,3", True),
    (",5,6", True),
    ("0.0,1.0,2.0", True),        # decimals are values, not column numbers
    ("0,1,NA", True),             # a missing cell: not a header of column numbers
    ('"a","b","c"', False),       # R's header, quoted
    ('"1","2","3"', False),       # R's header of numeric names: quoted
    ('"x",1.5,2', True),          # R's data line: a quoted label beside bare numbers
])
def test_first_line_decisions(tmp_path, first_line, is_data):
    path = tmp_path / "m.csv"
    path.write_text(first_line + "\n5,6,7\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputNote)
        frame = _reading.read_table(path)
    assert frame.shape[0] == (2 if is_data else 1)
    assert list(frame.columns[:1]) == (["V1"] if is_data else list(frame.columns[:1]))


def test_first_line_zero_or_zero_one_is_refused(tmp_path):
    # "0" / "0,1": pandas' header of an unnamed column (matrix), or binary labels? Refused.
    for first in ("0", "0,1"):
        path = tmp_path / "b.csv"
        path.write_text(first + "\n1" + ",0" * first.count(",") + "\n")
        with pytest.raises(InputError) as err:
            _reading.read_table(path, what="DATA")
        assert str(err.value) == (
            f"DATA file '{path}', line 1: is '{first}' the column numbers pandas writes as a header "
            "(to_csv of an unnamed matrix) or a first row of data (binary labels)? Say which with "
            "header=True or header=False")  # read_table's keyword (the CLI says its options: issue 35)
        with _no_warnings():
            assert _reading.read_table(path, header=False).shape[0] == 2
            assert _reading.read_table(path, header=True).shape[0] == 1


def test_first_line_on_unusual_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="is empty$"):
        _reading.read_table(empty)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"a,b\ncaf\xe9,1\n2,3\n")  # not UTF-8: the byte and its line
    with pytest.raises(InputError) as err:
        _reading.read_table(latin, what="DATA")
    assert str(err.value) == f"DATA file '{latin}' is not UTF-8 text (byte 7, line 2)"
    huge = tmp_path / "huge.csv"  # a field beyond the csv module's limit
    huge.write_text('a,b\n3,4\n"' + "1" * 200_000 + '",2\n')
    with pytest.raises(InputError, match=r"huge.csv', line 3: could not be read as CSV \(sep ',', dec '.' "
                                         r"\(R's read.csv\)\): field larger than field limit"):
        _reading.read_table(huge)
    crlf = tmp_path / "crlf.csv"  # Windows line ends
    crlf.write_bytes(b"1,1\r\n5,6\r\n")
    with pytest.warns(InputNote):
        assert _reading.read_table(crlf).to_numpy().tolist() == [[1, 1], [5, 6]]


def test_read_table_headerless_file_is_named_like_r_and_says_so(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("1.5,2,NA\n3,4,5\n")
    with pytest.warns(InputNote) as notes:
        frame = _reading.read_table(path, what="PREDICTIONS")
    assert len(notes) == 1
    assert str(notes[0].message) == (
        f"PREDICTIONS file '{path}': its first row holds only numbers, so it is read as data "
        "(columns named V1..V3); pass header=True if it names the columns")
    assert list(frame.columns) == ["V1", "V2", "V3"]
    assert frame.to_numpy().tolist()[1] == [3.0, 4.0, 5.0] and frame.iloc[0, 0] == 1.5
    assert np.isnan(frame.iloc[0, 2])
    assert frame.attrs["path"] == str(path)
    one = tmp_path / "y.csv"
    one.write_text("3\n4\n5\n")
    with pytest.warns(InputNote, match=r"\(column named V1\)"):
        assert _reading.read_table(one)["V1"].tolist() == [3, 4, 5]


def test_read_table_header_given_explicitly(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("1,2\n3,4\n")
    with _no_warnings():
        named = _reading.read_table(path, header=True)
        data = _reading.read_table(path, header=False)
    assert list(named.columns) == ["1", "2"] and named.to_numpy().tolist() == [[3, 4]]
    assert list(data.columns) == ["V1", "V2"] and data.to_numpy().tolist() == [[1, 2], [3, 4]]
    words = tmp_path / "w.csv"
    words.write_text("a,b\n3,4\n")
    with _no_warnings():
        assert _reading.read_table(words, header=False).to_numpy().tolist() == [["a", "b"], ["3", "4"]]
        assert _reading.read_table(words).to_numpy().tolist() == [[3, 4]]
    with pytest.raises(TypeError, match="`what`"):
        _reading.read_table(path, what=3)


def test_read_table_row_names_become_the_index(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('"","a","b"\n"x",1,2\n"y",3,NA\n')
    with _no_warnings():
        frame = _reading.read_table(path)
    assert list(frame.index) == ["x", "y"] and frame.index.name is None
    assert list(frame.columns) == ["a", "b"]
    unnamed = tmp_path / "u.csv"
    pd.DataFrame({"a": [1, 2]}, index=["p", "q"]).to_csv(unnamed)  # ",a" -> "Unnamed: 0"
    with _no_warnings():
        assert list(_reading.read_table(unnamed).index) == ["p", "q"]
    headerless = tmp_path / "h.csv"
    headerless.write_text(",5,6\n,7,8\n")  # empty first cells and no header: V1 is a column
    with pytest.warns(InputNote):
        assert list(_reading.read_table(headerless).columns) == ["V1", "V2", "V3"]


def test_read_table_errors_name_the_file(tmp_path):
    cases = {}
    with pytest.raises(InputError) as err:
        _reading.read_table(tmp_path / "none.csv", what="DATA")
    cases["missing"] = str(err.value)
    with pytest.raises(InputError) as err:
        _reading.read_table(tmp_path, what="DATA")
    cases["folder"] = str(err.value)
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(InputError) as err:
        _reading.read_table(tmp_path / "e.csv", what="DATA")
    cases["empty"] = str(err.value)
    (tmp_path / "r.csv").write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(InputError) as err:
        _reading.read_table(tmp_path / "r.csv", what="DATA")
    cases["ragged"] = str(err.value)
    (tmp_path / "h.csv").write_text("a,b\n")
    with pytest.raises(InputError) as err:
        _reading.read_table(tmp_path / "h.csv", what="DATA")
    cases["no rows"] = str(err.value)
    assert cases == {
        "missing": f"DATA file '{tmp_path / 'none.csv'}' does not exist",
        "folder": f"DATA '{tmp_path}' is a directory; expected a CSV or Parquet file",
        "empty": f"DATA file '{tmp_path / 'e.csv'}' is empty",
        "ragged": f"DATA file '{tmp_path / 'r.csv'}', line 3: 3 fields where line 2 has 2 "
                  "(sep ',', dec '.' (R's read.csv)); decimal commas (1,5)? Files of R's write.csv2 "
                  "are read with sep=';', dec=','",
        "no rows": f"DATA file '{tmp_path / 'h.csv'}' has no data rows or no columns",
    }


def test_read_table_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "m.parquet"
    pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, None]}).to_parquet(path)
    with _no_warnings():
        frame = _reading.read_table(path)
    assert frame.shape == (2, 2) and frame.attrs["path"] == str(path)
    with pytest.warns(InputNote) as notes:
        _reading.read_table(path, what="RATINGS", header=False)
    assert str(notes[0].message) == (f"RATINGS '{path}' is a Parquet file, which always names its columns: "
                                     "--no-header is ignored")
    with pytest.warns(InputNote, match="--header is ignored"):
        _reading.read_table(path, header=True)
    bad = tmp_path / "bad.pq"
    bad.write_bytes(b"not parquet")
    with pytest.raises(InputError, match=rf"^RATINGS file '{bad}' is not a readable Parquet file: "):
        _reading.read_table(bad, what="RATINGS")


def test_read_table_parquet_without_pyarrow(tmp_path, monkeypatch):
    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    path = tmp_path / "m.PARQUET"  # the suffix in any case
    path.write_bytes(b"PAR1")
    with pytest.raises(InputError) as err:
        _reading.read_table(path, what="DATA")
    assert str(err.value) == (f"reading DATA '{path}' (Parquet) needs pyarrow: pip install pyarrow, "
                              "or give a CSV file")


# ----------------------------------------------------------------------------- numeric_matrix
def _frame(columns, path="data.csv"):
    frame = pd.DataFrame(columns)
    frame.attrs["path"] = path
    return frame


def test_numeric_matrix_values():
    frame = _frame({"a": [1, 2, 3], "b": [0.5, np.nan, 2.5], "c": [True, False, True]})
    out = _reading.numeric_matrix(frame)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1, 0.5, 1], [2, np.nan, 0], [3, 2.5, 1]])
    # an R file: "NA" cells and a text column with numbers written as such
    text = _frame({"a": pd.Series(["1.5", None, "-2e1"], dtype=object)})
    np.testing.assert_array_equal(_reading.numeric_matrix(text), [[1.5], [np.nan], [-20.0]])
    nullable = _frame({"a": pd.array([1, None, 3], dtype="Int64"), "b": pd.array([0.5, 1.5, None],
                                                                                 dtype="Float64")})
    np.testing.assert_array_equal(_reading.numeric_matrix(nullable), [[1, 0.5], [np.nan, 1.5], [3, np.nan]])


@pytest.mark.parametrize("path, where", [("d.csv", "'d.csv', line 3, column 'b'"),
                                         ("d.parquet", "'d.parquet', row 2, column 'b'"),
                                         ("D.PQ", "'D.PQ', row 2, column 'b'")])
def test_numeric_matrix_names_the_bad_cell(path, where):
    frame = _frame({"a": [1.0, 2.0, 3.0], "b": ["1", "x", "y"], "c": ["z", "1", "2"]}, path)
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(frame, what="DATA")
    assert str(err.value) == f"DATA: {where}: expected a number, got 'x'"


def test_numeric_matrix_infinite_and_missing_cells():
    frame = _frame({"a": [1.0, 2.0, 3.0], "b": [1.0, np.nan, -np.inf], "c": [np.inf, 1.0, 2.0]})
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(frame, what="SCORES")
    # the first refused cell column by column, as for a cell that is not a number
    assert str(err.value) == "SCORES: 'data.csv', line 4, column 'b': infinite values are not allowed"
    missing = _frame({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, np.nan], "c": [0.0, np.nan, 1.0]})
    np.testing.assert_array_equal(_reading.numeric_matrix(missing)[:, 2], [0.0, np.nan, 1.0])
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(missing, what="SCORES", allow_missing=False)
    assert str(err.value) == "SCORES: 'data.csv', line 3, column 'c': missing value (NA) not allowed here"
    complete = _frame({"a": [1.0, 2.0]})
    assert _reading.numeric_matrix(complete, allow_missing=False).tolist() == [[1.0], [2.0]]
    nameless = pd.DataFrame({"a": ["q"]})  # a frame not read from a file
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(nameless)
    assert str(err.value) == "input: 'input', line 2, column 'a': expected a number, got 'q'"


@pytest.mark.parametrize("position", [0, 1, 6, 12])
def test_numeric_matrix_finds_the_first_refused_cell_anywhere(position):
    # 13 rows: the bad cell at the first, second, a middle and the last line
    numbers = [float(i) for i in range(13)]
    numbers[3] = np.nan  # a missing cell is no problem
    infinite = numbers.copy()
    infinite[position] = np.inf
    if position != 12:
        infinite[12] = -np.inf  # a later one is not the first
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(_frame({"ok": numbers, "x": infinite}))
    assert str(err.value) == (f"input: 'data.csv', line {position + 2}, column 'x': infinite values are "
                              "not allowed")
    dates = pd.Series(pd.to_datetime([f"2024-01-0{i % 9 + 1}" for i in range(13)]))
    dates[:position] = pd.NaT
    with pytest.raises(InputError) as err:
        _reading.numeric_matrix(_frame({"ok": numbers, "when": dates}))
    assert str(err.value) == (f"input: 'data.csv', line {position + 2}, column 'when': expected a number, "
                              f"got {dates.to_numpy()[position]!r}")


def test_numeric_matrix_cells_that_are_not_numbers():
    cases = {
        "categories": _frame({"a": pd.Categorical(["x", "y"])}),
        "complex": _frame({"a": np.array([1 + 2j, 3])}),
        "objects": _frame({"a": pd.Series([1.5, None, Path("p")], dtype=object)}),
        "text after a missing cell": _frame({"a": pd.Series([None, "2", "two"], dtype="str")}),
    }
    messages = {}
    for name, frame in cases.items():
        with pytest.raises(InputError) as err:
            _reading.numeric_matrix(frame, what="R")
        messages[name] = str(err.value)
    assert messages == {
        "categories": "R: 'data.csv', line 2, column 'a': expected a number, got 'x'",
        "complex": "R: 'data.csv', line 2, column 'a': expected a number, got np.complex128(1+2j)",
        "objects": f"R: 'data.csv', line 4, column 'a': expected a number, got {Path('p')!r}",
        "text after a missing cell": "R: 'data.csv', line 4, column 'a': expected a number, got 'two'",
    }
    numbers_as_categories = _frame({"a": pd.Categorical([2, 1, 2])})
    assert _reading.numeric_matrix(numbers_as_categories).tolist() == [[2.0], [1.0], [2.0]]


# ----------------------------------------------------------------------------- column
def test_column_lists_the_closest_names_first():
    frame = _frame({"Target": [1], "TARGET": [2], "alpha": [3], "tar": [4]}, "d.csv")
    np.testing.assert_array_equal(_reading.column(frame, "alpha"), [3])
    assert _reading.column(frame, "alpha").name == "alpha"
    with pytest.raises(InputError) as err:
        _reading.column(frame, "target", what="DATA")
    # one entry per name ignoring case (the first spelling), closest first, then the rest in order
    assert str(err.value) == ("DATA 'd.csv' has no column 'target'; closest: 'Target', 'tar'; "
                              "all 4 columns: Target, tar, TARGET, alpha")
    with pytest.raises(InputError) as err:
        _reading.column(frame, "zzz")
    assert str(err.value) == "input 'd.csv' has no column 'zzz'; all 4 columns: Target, TARGET, alpha, tar"


def test_column_keeps_at_most_five_close_names():
    frame = _frame({f"score{k}": [k] for k in range(7)}, "s.csv")
    with pytest.raises(InputError) as err:
        _reading.column(frame, "score", what="SCORES")
    assert str(err.value) == ("SCORES 's.csv' has no column 'score'; closest: 'score6', 'score5', 'score4', "
                              "'score3', 'score2'; all 7 columns: score6, score5, score4, score3, score2, "
                              "score0, score1")
    # difflib's cutoff 0.6: "abcde" ~ "abxyz" scores 0.4 (not close), "abcxy" 0.6 (close)
    frame = _frame({"abxyz": [1], "abcxy": [2]}, "s.csv")
    with pytest.raises(InputError, match=r"closest: 'abcxy'; all 2"):
        _reading.column(frame, "abcde")
    no_path = pd.DataFrame({"a": [1]})
    with pytest.raises(InputError, match=r"^input '' has no column 'b'; all 1 columns: a$"):
        _reading.column(no_path, "b")


# ----------------------------------------------------------------------------- parse_list
def test_parse_list():
    assert _reading.parse_list("10, 20,30", option="--grid", convert=int) == [10, 20, 30]
    assert _reading.parse_list(" low,mid , high", option="--categories") == ["low", "mid", "high"]
    assert _reading.parse_list(5, option="--grid", convert=int) == [5]
    assert _reading.parse_list("0.5,1e-3", option="--x", convert=float) == [0.5, 0.001]
    errors = {}
    for text, convert in [("a,,b", str), ("", str), ("1,2,", int), ("1,x", int), ("1,2.5", int)]:
        with pytest.raises(InputError) as err:
            _reading.parse_list(text, option="--grid", convert=convert)
        errors[text] = str(err.value)
    assert errors == {
        "a,,b": "--grid must be a comma-separated list without empty items; got 'a,,b'",
        "": "--grid must be a comma-separated list without empty items; got ''",
        "1,2,": "--grid must be a comma-separated list without empty items; got '1,2,'",
        "1,x": "--grid must be a comma-separated list of ints; got '1,x'",
        "1,2.5": "--grid must be a comma-separated list of ints; got '1,2.5'",
    }


def test_label_matrix_keeps_labels_and_marks_missing_cells_none():
    frame = _frame({"a": pd.Series(["low", None, "high"], dtype="str"), "b": [1, 2, 3],
                    "c": [0.5, np.nan, 2.0], "d": pd.array([True, None, False], dtype="boolean")})
    labels = _reading.label_matrix(frame)
    assert labels.dtype == object
    # a column of text makes every label text (issue 22, item 6), numbers in their shortest form
    assert labels.tolist() == [["low", "1", "0.5", "True"], [None, "2", None, None],
                               ["high", "3", "2", "False"]]
    # integer labels stay integers beside a column of decimals (1, not 1.0)
    numbers = _reading.label_matrix(_frame({"b": [1, 2], "c": [0.5, np.nan]}))
    assert [type(v) for v in numbers[:, 0]] == [int, int] and numbers.tolist() == [[1, 0.5], [2, None]]


# ----------------------------------------------------------------------------- real_values
def test_real_values_reads_through_the_package_reader():
    from predstab._core._validation import InvalidParameterError

    assert _reading.real_values((1, 2.5), name="n").tolist() == [1.0, 2.5]
    assert (_reading.real_values([[1, 2], [3, 4]], name="s", rectangular=True).tolist()
            == [[1.0, 2.0], [3.0, 4.0]])
    messages = {}
    for values, rectangular in [(["a", 1], False), ([1 + 1j], False), ([[1, 2], [3]], True),
                                ([[0.5, pd.NA]], True)]:
        with pytest.raises(InvalidParameterError) as err:
            if rectangular:
                _reading.real_values(values, name="stability", rectangular=True)
            else:  # the default: one sequence
                _reading.real_values(values, name="stability")
        messages[str(values) if not rectangular else repr(values)[:20]] = str(err.value)
    assert messages == {
        "['a', 1]": "`stability` must be a 1-D sequence of real numbers; got ['a', 1].",
        "[(1+1j)]": "`stability` must be a 1-D sequence of real numbers; got [(1+1j)].",
        "[[1, 2], [3]]": "`stability` must be real numbers, a 1-D sequence or a rectangular 2-D array; "
                         "got [[1, 2], [3]].",
        "[[0.5, <NA>]]": "`stability` must be real numbers, a 1-D sequence or a rectangular 2-D array; "
                        "got [[0.5, <NA>]].",
    }


# ----------------------------------------------------------------------------- orientation
def _line_agreement_by_pairs(matrix):
    """The mean over rows of the share of pairs of different cells holding the same value."""
    shares = []
    for row in np.asarray(matrix, dtype=object):
        pairs = list(itertools.combinations([str(v) for v in row], 2))
        shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return float(np.mean(shares))


def test_line_agreement_counts_agreeing_pairs():
    two_rows = np.array([["a", "a", "b"], ["a", "b", "c"]], dtype=object)
    assert _gate._line_agreement(two_rows) == pytest.approx(1 / 6)
    assert _gate._line_agreement(np.array([[None, None, "a", "a"]], dtype=object)) == pytest.approx(2 / 6)
    assert _gate._line_agreement(np.array([[1, 1], [2, 2]])) == 1.0
    assert _gate._line_agreement(np.array([["a", "b", "c"], ["a", "a", "a"]])) == 0.5  # 'c' only in row 1
    rng = np.random.default_rng(5)
    for shape, k in [((4, 7), 3), ((7, 4), 5), ((3, 12), 12), ((5, 2), 2)]:
        matrix = rng.integers(0, k, size=shape).astype(object)
        matrix[0, 0] = matrix[-1, 1] = None  # missing cells, one more value, in the first and last rows
        assert _gate._line_agreement(matrix) == pytest.approx(_line_agreement_by_pairs(matrix), abs=1e-12)


def _warned(matrix, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        flagged = _gate.check_orientation(matrix, **kwargs)
    assert [w.category for w in caught] == ([PredstabOrientationWarning] if flagged else [])
    assert issubclass(PredstabOrientationWarning, PredstabDataWarning)
    return flagged, [str(w.message) for w in caught]


def test_check_orientation_numbers():
    # refits in rows: every column is one object, nearly the same value in every refit
    refits_in_rows = np.array([[0.0, 10, 20, 30, 40, 50], [1.0, 11, 21, 31, 41, 51]])
    flagged, messages = _warned(refits_in_rows, what="PREDICTIONS")
    assert flagged is True
    assert messages == ["PREDICTIONS has 2 rows and 6 columns, and its values agree more down the columns "
                        "than along the rows: it looks transposed. Objects belong in rows and refits "
                        "(members, raters) in columns; if the file has them the other way round, "
                        "add --transpose"]
    # from the API, the message names the parameter and says how to keep the orientation (issue 32)
    api = _warned(refits_in_rows, name="predictions")[1][0]
    assert api.startswith("`predictions` has 2 rows and 6 columns") and "pass `predictions.T`" in api
    assert "category=predstab.PredstabOrientationWarning" in api
    assert _warned(refits_in_rows, what="RATINGS 'r.csv'", option="-t")[1][0].startswith(
        "RATINGS 'r.csv' has 2 rows and 6 columns")
    assert _warned(refits_in_rows, what="R", option="-t")[1][0].endswith("add -t")
    assert _warned(refits_in_rows.astype(int))[0] is True       # integers are numbers
    assert _warned(refits_in_rows.T)[0] is False                # the right way round
    assert _warned(refits_in_rows[:, :5])[0] is False           # fewer than 3 x more columns than rows
    assert _warned(refits_in_rows, ratio=4)[0] is False
    assert _warned(refits_in_rows[:1])[0] is False              # one row
    assert _warned(np.array([["a", "b", "c", "d"]], dtype=object))[0] is False
    assert _warned(refits_in_rows[0])[0] is False               # not a matrix
    # exactly at the rule: mean column variance (1/3) = half the mean row variance (2/3) -> no warning
    at_half = np.array([[2, 2, 3, 1, 3, 3], [3, 1, 3, 2, 2, 3]], dtype=float)
    assert np.mean(np.var(at_half, axis=0, ddof=1)) == 0.5 * np.mean(np.var(at_half, axis=1, ddof=1))
    assert _warned(at_half)[0] is False
    below = at_half.copy()
    below[1, 0] = 2.0  # one column now agrees: 1/4 < half of 0.6333
    assert np.mean(np.var(below, axis=0, ddof=1)) < 0.5 * np.mean(np.var(below, axis=1, ddof=1))
    assert _warned(below)[0] is True
    # mean row variance (46/15 + 6/5) / 2 = 32/15, mean column variance 1 < 16/15: a warning
    near = np.array([[1, 4, 4, 4, 0, 3], [1, 4, 3, 3, 3, 4]], dtype=float)
    assert _warned(near)[0] is True


def test_check_orientation_numbers_with_missing_values():
    refits_in_rows = np.array([[0.0, 10, np.nan, 30, 40, 50, 60, 70, 80],
                               [1.0, 11, 21, 31, np.nan, 51, 61, 71, 81], [np.nan] * 9])
    # an all-missing row, a column with one value: numpy's warnings stay inside
    assert _warned(refits_in_rows)[0] is True
    with np.errstate(all="raise"):  # a user's np.seterr(all="raise") does not break the check
        assert _warned(refits_in_rows)[0] is True
        with_inf = refits_in_rows.copy()
        with_inf[0, 1] = np.inf  # inf - inf inside the variances
        assert _warned(with_inf)[0] is True
    bools = np.array([[True, False, True, False, True, False], [True, False, True, False, True, True]])
    assert _warned(bools)[0] is True


def test_check_orientation_categories():
    # 2 x 10: all values of a row distinct (row agreement 0), the two rows agree in k columns
    def matrix(k):
        first = [f"a{j}" for j in range(10)]
        second = [f"a{j}" if j < k else f"b{j}" for j in range(10)]
        return np.array([first, second], dtype=object)

    assert _gate._line_agreement(matrix(1).T) == 0.1 and _gate._line_agreement(matrix(1)) == 0.0
    assert _warned(matrix(1))[0] is False  # 0.1 more agreement down the columns: not clearly more
    assert _warned(matrix(2))[0] is True
    assert _warned(matrix(2).T)[0] is False
    with_missing = matrix(3)
    with_missing[0, 5] = with_missing[1, 7] = None  # a missing cell is one more value, not an error
    assert _warned(with_missing)[0] is True
    # numbers as labels of categories would agree as numbers: objects columns hold close numbers
    close = np.array([[10 * j + i for j in range(6)] for i in range(2)])
    assert _warned(close)[0] is True                    # as numbers: transposed
    assert _warned(close.astype(str))[0] is False        # as labels: all distinct, no evidence


# ----------------------------------------------------------------------------- target kinds
def test_check_target_kind_accepts():
    assert _gate.check_target_kind([0.5, 1.25, 3], "regression") is None
    assert _gate.check_target_kind(["1.5", "2"], "regression") is None  # numbers written as text
    assert _gate.check_target_kind(["a", "b", "a"], "classification") is None
    assert _gate.check_target_kind([1.0, 2.0, np.nan, 1.0], "ordinal") is None
    assert _gate.check_target_kind(np.arange(20), "classification") is None      # 20 classes in 20 rows
    assert _gate.check_target_kind(np.arange(42) % 21, "classification") is None  # 21 classes, 42 rows
    assert _gate.check_target_kind(np.arange(44) % 22, "ordinal") is None


@pytest.mark.parametrize("y, task, message", [
    (np.arange(21), "classification",
     "the target 'target' looks continuous (21 distinct numbers in 21 rows, e.g. 0, 1, 2, ...): "
     "--task classification needs class labels; use --task regression, or cut the target into classes first"),
    (np.arange(44) % 23, "ordinal",
     "the target 'target' looks continuous (23 distinct numbers in 44 rows, e.g. 0, 1, 2, ...): "
     "--task ordinal needs class labels; use --task regression, or cut the target into classes first"),
    ([2.0, 1.0, 1.0, 1.5, np.nan], "classification",
     "the target 'target' looks continuous (3 distinct numbers in 4 rows, e.g. 1, 1.5, 2, ...): "
     "--task classification needs class labels; use --task regression, or cut the target into classes first"),
    ([0.123456, 5.0, 5.0, 5.0], "ordinal",
     "the target 'target' looks continuous (2 distinct numbers in 4 rows, e.g. 0.1235, 5, ...): "
     "--task ordinal needs class labels; use --task regression, or cut the target into classes first"),
])
def test_check_target_kind_refuses_continuous_classes(y, task, message):
    with pytest.raises(InputError) as err:
        _gate.check_target_kind(y, task)
    assert str(err.value) == message


def test_check_target_kind_refuses_text_for_regression_and_unknown_tasks():
    with pytest.raises(InputError) as err:
        _gate.check_target_kind(["b", "a", 1.5, "b", None, "c", "d"], "regression", name="species")
    assert str(err.value) == ("the target 'species' holds text ('b', 'a', 'c'), not numbers: --task "
                              "regression needs a numeric target; use --task classification (or --task "
                              "ordinal with --levels) for categories")
    with pytest.raises(InputError) as err:
        _gate.check_target_kind(["x", np.nan], "regression")
    assert "holds text ('x'), not numbers" in str(err.value)
    with pytest.raises(InputError) as err:
        _gate.check_target_kind([1, 2], "Regression")
    assert str(err.value) == "--task must be regression, classification or ordinal; got 'Regression'"


def test_cli_wide_category_file_with_a_missing_first_cell(tmp_path, capsys):
    # was "error: 'list' argument must have no negative elements": the orientation check counted
    # a missing cell as code -1 (a crash in the first row, a miscount in the others)
    import predstab
    from predstab.cli import main

    rows = [["abc"[j % 3] for j in range(10)] for _ in range(3)]
    rows[0][0] = ""
    (tmp_path / "p.csv").write_text(",".join(f"r{j}" for j in range(10)) + "\n"
                                    + "".join(",".join(row) + "\n" for row in rows))
    (tmp_path / "y.csv").write_text("y\na\nb\nc\n")
    code = main(["stability", str(tmp_path / "p.csv"), "--training-observations", str(tmp_path / "y.csv"),
                 "--scale", "categorical"])
    out, err = capsys.readouterr()
    assert code == 0 and "has 3 rows and 10 columns" in err and "it looks transposed" in err
    labels = np.array(rows, dtype=object)
    labels[0, 0] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = predstab.phi(labels, np.array(["a", "b", "c"], dtype=object), scale="categorical")
    assert str(expected) in out


def test_decimal_comma_files_read_as_r_read_csv2_does(tmp_path):
    # R's write.csv2 layout (sep ';', dec ','): decimal commas are numbers in columns with and
    # without a missing cell, a text column keeps its commas, and a label "1,5" among words is
    # the number 1.5 written in its shortest form
    path = tmp_path / "ratings.csv"
    path.write_text("a;b;c;d\n1,5;2;x,y;1,0\n2,25;NA;z;2,5\nNA;4;1,5;3\n")
    with _no_warnings():
        frame = _reading.read_table(path, sep=";", dec=",")
    assert frame["a"].tolist()[:2] == [1.5, 2.25] and np.isnan(frame["a"].iloc[2])
    assert frame["b"].tolist()[0::2] == [2.0, 4.0] and np.isnan(frame["b"].iloc[1])
    assert frame["c"].tolist() == ["x,y", "z", "1,5"]
    assert frame["d"].tolist() == [1.0, 2.5, 3.0]
    assert _reading.label_matrix(frame).tolist() == [["1.5", "2", "x,y", "1"], ["2.25", None, "z", "2.5"],
                                                     [None, "4", "1.5", "3"]]
    path.write_text("a;b\n1,5;2,5\n0,5;1,0\n")
    frame = _reading.read_table(path, sep=";", dec=",")
    assert _reading.label_matrix(frame).tolist() == [[1.5, 2.5], [0.5, 1]]


def test_separator_sniffed_and_quoted_fields(tmp_path):
    # a tab-separated file is read without --sep (a comma in a cell does not make it CSV); quoted
    # fields keep their separators and doubled quotes, as R's read.csv / read.table read them
    tsv = tmp_path / "t.txt"
    tsv.write_text("a\tb\n1,5\t2\n3\t4\n")
    frame = _reading.read_table(tsv)
    assert frame.columns.tolist() == ["a", "b"] and frame.to_numpy().tolist() == [["1,5", 2], ["3", 4]]
    csv = tmp_path / "q.csv"
    csv.write_text('a,b,c\n"x,y","say ""hi""",3\n"z",w,4\n')
    assert _reading.read_table(csv).to_numpy().tolist() == [["x,y", 'say "hi"', 3], ["z", "w", 4]]
    spaced = tmp_path / "s.txt"
    spaced.write_text('a b\n"x y" 2\n3 4\n')
    assert _reading.read_table(spaced, sep=" ").to_numpy().tolist() == [["x y", 2], ["3", 4]]


def test_duplicate_column_names_and_trailing_separators_are_refused_in_words(tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text("x,y,x,x\n1,2,3,4\n")
    with pytest.raises(InputError) as info:
        _reading.unique_columns(_reading.read_table(dup))
    assert str(info.value) == (f"input '{dup}' has 3 columns named 'x' (columns 1, 3 and 4); give every "
                               "column its own name")
    trailing = tmp_path / "tr.csv"
    trailing.write_text("a,b,\n1,2,\n3,4,\n")
    with pytest.raises(InputError) as info:
        _reading.read_table(trailing)
    assert str(info.value) == (f"input file '{trailing}', line 1 ends with ',': every line has a trailing "
                               "separator, which adds an empty column; remove them")


# ----------------------------------------------------------------------------- mutation survivors (issue 32)
def test_the_read_is_bounded_by_a_quarter_of_the_memory(monkeypatch, tmp_path):
    meminfo = Path("/proc/meminfo")
    if not meminfo.exists():  # pragma: no cover - not Linux
        pytest.skip("no /proc/meminfo")
    total_kib = int(meminfo.read_text().split("\n")[0].split()[1])  # "MemTotal:  24683772 kB"
    assert _reading._max_bytes() == total_kib * 1024 // 4 and isinstance(_reading._max_bytes(), int)
    # text that keeps coming (here: a file past a bound of 3 MiB, read 1 MiB at a time)
    monkeypatch.setattr(_reading, "_max_bytes", lambda: 3 << 20)
    path = tmp_path / "endless.csv"
    path.write_bytes(b"a,b\n" + b"1,2\n" * (1 << 20))  # 4 MiB of valid lines
    with pytest.raises(InputError) as info:
        _reading.read_table(path, what="RATINGS")
    assert str(info.value) == (f"RATINGS file '{path}' is longer than 3 MiB, a quarter of this machine's "
                               "memory: an input that never ends (a device, or a pipe that keeps writing)? "
                               "Give a file, or a pipe that ends")


def test_a_table_read_in_many_chunks_is_the_table(monkeypatch, tmp_path):
    monkeypatch.setattr(_reading, "_CHUNK", 5)
    path = tmp_path / "m.csv"
    path.write_bytes("a,b\n1.5,2\n3,4\n5,é\n".encode())  # é: two bytes cut by a chunk's end
    frame = _reading.read_table(path)
    assert frame["a"].tolist() == [1.5, 3.0, 5.0] and frame["b"].tolist() == ["2", "4", "é"]
    # a NUL byte in a later chunk, and a file that ends inside a character, are named by byte and line
    path.write_bytes(b"a,b\n1,2\n3,\x004\n")
    with pytest.raises(InputError) as info:
        _reading.read_table(path)
    assert str(info.value) == (f"input file '{path}' is not a text table: it holds a NUL byte (a device such "
                               "as /dev/zero, or a binary file?) (byte 10, line 3)")
    path.write_bytes(b"a,b\n1,2\n3,\xc3")
    with pytest.raises(InputError) as info:
        _reading.read_table(path)
    assert str(info.value) == (f"input file '{path}' is not UTF-8 text (it ends inside a character) "
                               "(byte 10, line 3)")
    # the line bound names the line that has no end, after lines in several chunks
    monkeypatch.setattr(_reading, "_MAX_LINE", 20)
    path.write_bytes(b"a,b\n1,2\n3,4\n" + b"5" * 40)
    with pytest.raises(InputError, match=r"m\.csv': line 4 is longer than 0 MiB without a line end"):
        _reading.read_table(path)


def test_a_character_device_is_refused_before_reading(tmp_path):
    if not Path("/dev/null").exists():  # pragma: no cover - not a Unix system
        pytest.skip("no /dev/null")
    # /dev/null ends at once: only the device check tells it from an empty file
    with pytest.raises(InputError) as info:
        _reading.read_table("/dev/null", what="RATINGS")
    assert str(info.value) == ("RATINGS file '/dev/null' is a device, not a file or a pipe: a device such as "
                               "/dev/zero or /dev/urandom never ends; give a file, a pipe, or - for standard "
                               "input")
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(InputError, match=r"^input file '.*empty\.csv' is empty$"):
        _reading.read_table(tmp_path / "empty.csv")


def test_numbers_and_fields_cell_by_cell():
    # a decimal comma is a number only under dec=","; a doubled quote stays inside its field
    assert _reading._is_number("1,5", ",") and not _reading._is_number("1,5")
    assert not _reading._is_number("1,5.0", ",") and _reading._is_number("1.5", ",")
    assert _reading._quoted_fields('"a"",b",1', ",") == [True, False]
    assert _reading._quoted_fields('x,"a""b",1', ",") == [False, True, False]
    # whole numbers beyond int64 are numbers (float), not Python integers in an object array
    big = _reading._column_values(["99999999999999999999", "1"], ".")
    assert big.dtype == np.float64 and big.tolist() == [1e20, 1.0]
    assert _reading._column_values(["1,5", "2,25"], ",").tolist() == [1.5, 2.25]


def test_the_separator_and_the_row_names_as_r_reads_them(tmp_path):
    # ';' before ',' (R's write.csv2: decimal commas also hold ','), found without --sep
    path = tmp_path / "csv2.csv"
    path.write_text("a;b\n1,5;2,5\n3,0;4,5\n")
    assert _reading._sniff_sep(["a;b", "1,5;2,5"], ".csv") == ";"
    frame = _reading.read_table(path)
    assert frame.to_numpy().tolist() == [[1.5, 2.5], [3.0, 4.5]]
    # a header one field short over unquoted words: R's row names (its rule), then numbers
    named = tmp_path / "named.csv"
    named.write_text("x,y\na,1,2\nb,3,4\n")
    frame = _reading.read_table(named)
    assert frame.index.tolist() == ["a", "b"] and frame.to_numpy().tolist() == [[1, 2], [3, 4]]
    assert _reading.cell_location(frame, 1) == f"'{named}', line 3"
    assert _reading.cell_location(frame, 0, "y") == f"'{named}', line 2, column 'y'"
    # a first line whose quotes cannot be told field by field: read as unquoted (a header of names)
    odd = tmp_path / "odd.csv"
    odd.write_text(' "x,y\n1,2\n3,4\n')
    frame = _reading.read_table(odd)
    assert frame.columns.tolist() == ['"x', "y"] and frame.to_numpy().tolist() == [[1, 2], [3, 4]]


def test_the_note_on_pandas_column_numbers_in_full(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("0,1,2\n5,6,7\n")
    with pytest.warns(InputNote) as caught:
        frame = _reading.read_table(path)
    assert frame.columns.tolist() == ["0", "1", "2"]
    assert str(caught[0].message) == (f"input file '{path}': line 1 ('0,1,...,2') is read as the column "
                                      "numbers pandas writes as a header; pass header=False if it is a "
                                      "row of data")  # the Python advice; the CLI rewords it (test_cli_words)
