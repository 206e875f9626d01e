"""The parity table of ``validation/`` is part of the test suite: every row must pass."""

import filecmp
from pathlib import Path

import pytest

from validation._table import REFERENCE
from validation.run import available_suites, main, run_suite

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "r-reference"


@pytest.mark.parametrize("suite", available_suites())
def test_suite_passes(suite):
    rows = run_suite(suite)
    assert rows, f"suite {suite!r} produced no checks"
    failures = [r for r in rows if not r.passed]
    assert not failures, "\n".join(
        f"{r.case} {r.quantity}: R={r.r_value!r} predstab={r.predstab_value!r} tol={r.tolerance} {r.note}"
        for r in failures
    )


@pytest.mark.slow
def test_runner_exit_code_and_table(capsys, tmp_path):
    md = tmp_path / "report.md"
    assert main(["--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "passed, 0 failed" in out
    assert md.read_text().startswith("| suite | case |")


def test_runner_rejects_unknown_suite():
    with pytest.raises(SystemExit):
        main(["no-such-suite"])


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/r-reference not beside the project")
def test_reference_copy_is_identical_to_shared():
    """validation/r-reference is a verbatim copy of ../shared/r-reference."""
    cmp = filecmp.dircmp(SHARED, REFERENCE)

    def differences(c):
        out = c.left_only + c.right_only + c.diff_files + c.funny_files
        for sub in c.subdirs.values():
            out += differences(sub)
        return out

    # compare contents, not only stat signatures
    mismatched = [
        str(p.relative_to(SHARED)) for p in SHARED.rglob("*") if p.is_file()
        and not filecmp.cmp(p, REFERENCE / p.relative_to(SHARED), shallow=False)
    ]
    assert not differences(cmp) and not mismatched
