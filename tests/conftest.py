"""Skip reasons that tell a user what to do (issue 13, item 23).

``pytest.importorskip`` says only "could not import 'pingouin'"; this adds the command that
installs what is missing (the project's extras where one exists), and rewords reasons
written for the maintainers.
"""

from __future__ import annotations

import re

import pytest

# module -> what installs it
_INSTALL = {
    "pingouin": 'pip install -e ".[bench]"',
    "krippendorff": 'pip install -e ".[bench]"',
    "dask": 'pip install -e ".[dask]"',
    "distributed": 'pip install -e ".[dask]"',
    "pyarrow": 'pip install -e ".[parquet]"',
    "hypothesis": 'pip install -e ".[dev]"',
    "statsmodels": "pip install statsmodels",
}
_MISSING = re.compile(r"could not import '([\w.]+)'")
# skip reasons written for the maintainers, reworded for a user (the test stays where it is)
_REWORDED = {
    "../shared/r-reference not beside the project": (
        "a maintainers' check that validation/r-reference/ is an exact copy of ../shared/r-reference; "
        "a user's checkout has no ../shared and needs nothing: the copy in validation/ is what the "
        "parity tests use"),
}


def install_hint(reason: str) -> str:
    """``reason`` with the command that installs the missing module appended.

    >>> print(install_hint("could not import 'dask.distributed': No module named 'dask'"))
    could not import 'dask.distributed': No module named 'dask' (to run it: pip install -e ".[dask]")
    """
    prefix = "Skipped: " if reason.startswith("Skipped: ") else ""
    if reason[len(prefix):] in _REWORDED:
        return prefix + _REWORDED[reason[len(prefix):]]
    match = _MISSING.search(reason)
    if match is None or "to run it:" in reason:
        return reason
    top = match.group(1).split(".")[0]
    return f"{reason} (to run it: {_INSTALL.get(top, f'pip install {top}')})"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, reason = report.longrepr
        report.longrepr = (path, line, install_hint(reason))


#: each Dask worker's memory limit in the shared process cluster (the memory test of
#: tests/ensembles/test_distributed.py builds a matrix of twice that)
DASK_WORKER_LIMIT = 400 * 2**20


@pytest.fixture(scope="session")
def dask_processes():
    """One LocalCluster of 2 worker processes (1 thread each, :data:`DASK_WORKER_LIMIT` bytes each)
    and its Client, started once for every test that needs worker processes (tests/core/test_dask.py,
    tests/ensembles/test_distributed.py): what is sent to the workers travels by pickle and nothing
    is shared with this process, as on a real cluster. Tests take it through a fixture that makes it
    the current client (``Client.as_current``), so that ``get_client()`` and joblib's dask backend
    use it even while another client (test_dask's threaded one) is open."""
    distributed = pytest.importorskip("distributed", reason="the Dask tests need dask[distributed]")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit=DASK_WORKER_LIMIT, dashboard_address=None) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client



def _xdist_group(item):
    """The group pytest-xdist's ``--dist loadgroup`` keeps on one worker: the tests of the process
    cluster together (it starts once); the tests of a module whose module-scoped fixtures they
    use (a fixture fitted once per module stays once); None, the others (any worker)."""
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    if "dask_processes" in defs:
        return "dask_processes"
    if any(d[-1].scope in ("module", "package", "class") and d[-1].baseid for d in defs.values() if d):
        return item.nodeid.split("::")[0]
    return None


def _scheduled_as(item, group):
    """Give ``item`` the ``@group`` suffix of its id that ``--dist loadgroup`` schedules by.

    pytest-xdist's worker writes the suffix from the ``xdist_group`` marks in its own
    ``pytest_collection_modifyitems``, which runs before this conftest's (hooks run last-registered
    first) and so never saw these marks; and it writes the string id that pytest < 9 kept
    (``_nodeid``), while pytest 9 reads a structured one (``_id``; pytest-xdist issue 1386). Either
    way no test had a suffix: each was scheduled alone, and a module's fixture was computed again on
    each worker and after every switch of module (the replication study twice in one run)."""
    nodeid = f"{item.nodeid}@{group}"
    if isinstance(getattr(item, "_id", None), str) or not hasattr(item, "_id"):
        item._nodeid = nodeid
    else:
        item._id = type(item._id).parse(nodeid)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (README's ``-n auto --dist loadgroup``) the tests that share a costly
    fixture run on one worker (:func:`_xdist_group`); without xdist the mark does nothing."""
    loadgroup = getattr(config.option, "loadgroup", False)  # set in xdist's workers
    for item in items:
        group = _xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            if loadgroup and not item.nodeid.endswith(f"@{group}"):
                _scheduled_as(item, group)
