"""Files written by base R read as R's own readers read them (issue 22, item 9).

``../shared/r-files`` holds 21 files written by ``write.csv``, ``write.csv2`` and
``write.table`` (with and without row names, NA as "NA" and as empty, labels, binary, quoted
names) and a manifest of what R's reader sees in each: row names, column names, the values of
every column and the positions of the missing ones. ``tests/data/r-files-extra`` adds the
other ways R users write such files (``quote = FALSE``, a byte-order mark, Windows line ends,
``write.csv2`` with empty NA, tab-separated without header, labels with spaces, row names
holding quotes and separators, quoted numeric column names, integer labels with NA), made by
its ``generate.R`` (R 4.2.2, ``Rscript generate.R tests/data/r-files-extra``). Neither needs R
to run.

Every file is read by ``predstab.read_table`` with the header switch of R's reader call
(``read.table`` reads without header unless told, ``read.csv`` with one) and nothing else:
separator, decimal mark, header and row names are found as documented in docs/cli.md.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core._reading import InputNote
from tests.surfaces._cli import predstab_cli

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "r-files"  # beside the clone, as for the validation identity test
EXTRA = ROOT / "tests" / "data" / "r-files-extra"


def _entries(folder):
    if not (folder / "manifest.json").is_file():
        return []
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return [pytest.param(folder, name, entry, id=f"{folder.name}/{name}") for name, entry in manifest.items()]


CASES = _entries(SHARED) + _entries(EXTRA)


def test_both_corpora_are_here():
    names = {p.values[1] for p in CASES}
    assert len([p for p in CASES if p.values[0] == EXTRA]) == 15
    if SHARED.is_dir():
        assert len(names) == 21 + 15


def _header(reader: str):
    """R's header switch in the reader call: read.table's default is no header."""
    if "header = TRUE" in reader:
        return True
    if reader.startswith("read.table(") and "header" not in reader:
        return False
    return None  # read.csv / read.csv2: predstab decides (and must find the header)


@pytest.mark.parametrize("folder, name, entry", CASES)
def test_read_table_sees_what_r_sees(folder, name, entry):
    reader, writer = entry["reader"][0], entry["writer"][0]
    header = _header(reader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputNote)  # "read as data" for the headerless files
        frame = predstab.read_table(folder / "files" / name, header=None if header is True else header)
    assert [str(c) for c in frame.columns] == entry["colnames"]
    if "row.names = FALSE" in writer:
        # no row names in the file: R numbers the rows "1".."n", predstab by position
        assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0
        assert entry["rownames"] == [str(i + 1) for i in range(frame.shape[0])]
    else:
        assert list(frame.index) == entry["rownames"]  # as text, "1".."n" included
    for j, col in enumerate(entry["colnames"]):
        got = frame.iloc[:, j]
        r_values, r_missing = entry["values"][col], entry["na"][col]
        assert np.flatnonzero(got.isna().to_numpy()).tolist() == r_missing
        for mine, theirs in zip(got.tolist(), r_values, strict=True):
            if theirs is None:
                continue
            if isinstance(theirs, str):
                assert mine == theirs
            else:  # R's numbers: the file holds 15 significant digits
                assert not isinstance(mine, str) and math.isclose(mine, theirs, rel_tol=1e-12, abs_tol=0)


def _per_object(proc, path):
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(path, dtype={"object": str}, keep_default_na=False)
    return dict(zip(table["object"], table["stability"], strict=True))


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/r-files not beside the project")
def test_the_cli_names_objects_by_r_row_names(tmp_path):
    """write.csv2 files through the installed command: every object keeps its R row name, and its
    stability is the one of that row of the matrix R reads."""
    name = "pred_named_writecsv2.csv"
    manifest = json.loads((SHARED / "manifest.json").read_text())
    entry = manifest[name]
    pred = np.column_stack([entry["values"][c] for c in entry["colnames"]])
    y = np.asarray(manifest["ytrain_writecsv2.csv"]["values"]["yield"])
    proc = predstab_cli("stability", SHARED / "files" / name, "--training-observations",
                        SHARED / "files" / "ytrain_writecsv2.csv", "--scale", "metric", "--per-object",
                        "--out", tmp_path / "per.csv")
    got = _per_object(proc, tmp_path / "per.csv")
    expected = predstab.phi(pred, y, scale="metric").per_object
    assert got == pytest.approx(dict(zip(entry["rownames"], expected, strict=True)), rel=1e-9)
    assert "object = row name" in proc.stdout
