"""README's ``python -m pytest -n auto --dist loadgroup`` keeps the tests of one costly fixture on
one worker (tests/conftest.py): a module's fixture is computed once, not once per worker.

With pytest 9 and pytest-xdist 3.8 the ``xdist_group`` marks this conftest sets never reached the
scheduler (pytest-xdist issue 1386; and its hook ran before this conftest's): every test was
scheduled alone, and fixtures such as the APS replication study (about 100 s on a loaded machine)
were computed on both workers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_MODULE = '''
import os
import pytest

@pytest.fixture(scope="module")
def costly():
    with open(os.environ["COMPUTED"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    return 1

@pytest.mark.parametrize("i", range(8))
def test_uses_it(costly, i):
    assert costly == 1

@pytest.mark.parametrize("i", range(8))
def test_alone(i):
    assert i >= 0
'''


def test_a_module_fixture_is_computed_once_under_loadgroup(tmp_path):
    pytest.importorskip("xdist", reason="README's command needs pytest-xdist (the dev extra)")
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_grouped.py").write_text(_MODULE, encoding="utf-8")
    computed = tmp_path / "computed.txt"
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p",
                           "no:cacheprovider", "-v", "test_grouped.py"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "COMPUTED": str(computed)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # the 8 tests of the fixture ran on one worker, scheduled as one group
    workers = {line.split()[0] for line in done.stdout.splitlines()
               if "PASSED" in line and "test_uses_it" in line}
    assert len(workers) == 1, done.stdout
    assert done.stdout.count("@test_grouped.py") >= 8, done.stdout
    assert computed.read_text().splitlines() == [workers.pop().strip("[]")]
