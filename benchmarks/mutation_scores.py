"""Mutation score per core module (issue 12, item 8), with mutmut.

Each module is mutated on its own, in a scratch copy of the project, against the test files
that exercise it (``MODULES`` below; the ``tests/test_mutants_*.py`` files written to kill
mutants are added automatically when their name matches the module). The table printed (and
written with ``--json``) is what ``docs/mutation.md`` reports::

    pip install -e ".[dev]"            # brings mutmut
    nice -n 19 python benchmarks/mutation_scores.py _icc _twopl --max-children 1 --json mutation.json

Without module names every module of ``MODULES`` is measured (several hours on a 2-core
machine). ``--mutmut`` names the mutmut executable (default: the one beside this Python).

The score is detected / (detected + survived + suspicious + no tests), "detected" being killed,
timeout (the tests ran 10 times longer than usual: an endless loop) or segfault; mutants listed in
``EQUIVALENT`` (changes no test can see: a message text, a dead default) are reported apart and
counted neither way, the reason next to each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# module -> test files that exercise it (relative to the project root)
# (the tests run without the slow ones: -m "not slow")
_PHI_PSI = ["tests/stability/test_phi_psi_values.py", "tests/stability/test_phi_psi_inputs.py",
            "tests/stability/test_phi_psi_counting.py", "tests/stability/test_phi_psi_object_intervals.py",
            "tests/stability/test_stability_result.py", "tests/stability/test_phi_psi_properties.py",
            "tests/test_stability_intervals.py"]
_TUNING = ["tests/ensembles/test_tune_methods.py", "tests/ensembles/test_tune_closed_form.py",
           "tests/ensembles/test_tune_recommendation.py", "tests/ensembles/test_tune_arguments.py",
           "tests/ensembles/test_tune_result.py"]
MODULES: dict[str, list[str]] = {
    "_stability": _PHI_PSI,
    "_disagreement": _PHI_PSI,
    "_object_intervals": _PHI_PSI,
    "_result": _PHI_PSI,
    "_scales": _PHI_PSI,
    "_registry": ["tests/stability/test_measure_registry.py", *_TUNING],
    # agreement: each module against its topic file(s) in tests/agreement/ (which hold the former
    # test_mutants_{icc,fleiss,krippendorff}.py); irrCAC's weighted Fleiss' kappa and alpha, now in
    # _fleiss and _krippendorff, are tested in test_cac.py
    "_icc": ["tests/agreement/test_icc.py"],
    "_fleiss": ["tests/agreement/test_fleiss.py", "tests/agreement/test_cac.py"],
    "_krippendorff": ["tests/agreement/test_krippendorff.py", "tests/agreement/test_cac.py"],
    "_twopl": ["tests/ensembles/test_twopl.py"],
    # the tuning (~3,000 mutants): the topic files of tests/ensembles, tiny data for most tests
    "_tune": _TUNING,
    "_tune_config": _TUNING,
    "_tune_strategies": _TUNING,
    "_tune_table": _TUNING,
    "_recommend": _TUNING,
    "_tune_result": _TUNING,
    "_pool": ["tests/ensembles/test_pool.py", "tests/ensembles/test_pool_closed_form.py"],
    "_closed_form": ["tests/ensembles/test_closed_form_functions.py",
                     "tests/ensembles/test_pool_closed_form.py"],
    # the loky / multiprocessing tests of repeated_predictions are marked slow: left out
    "_repeated": ["tests/ensembles/test_repeated_predictions.py"],
    # the file layer (was _io): test_reading.py / test_writing.py run it in-process on tiny files;
    # test_cli_inputs.py and test_cli_reports.py run the CLI only as a subprocess, which mutmut cannot
    # see; test_cli.py runs it in-process but takes ~45 s (tune and demo runs), which every surviving
    # mutant of a function they reach would cost
    "_reading": ["tests/surfaces/test_cli_files.py", "tests/surfaces/test_reading.py"],
    "_writing": ["tests/surfaces/test_cli_files.py", "tests/surfaces/test_writing.py"],
    # the agreement coefficients whose counting and variances were reworked for speed (issue 14)
    "_cac": ["tests/agreement/test_cac.py"],
    "_cac_tables": ["tests/agreement/test_cac.py"],
    "_alpha": ["tests/agreement/test_cronbach.py"],
}

# tests that check the file a warning points at: under mutmut every call passes through its
# trampoline (extra stack frames), so they fail on the unmutated code and are left out
DESELECT = ["tests/stability/test_phi_psi_values.py::test_warnings_point_at_the_callers_line"]

# mutant name -> why no test can tell it from the original (counted neither killed nor survived)
EQUIVALENT: dict[str, str] = {}

# a test run that fails, or is stopped after 10 x its usual time (mutmut's "timeout", e.g. an
# endless loop), or crashes, has detected the mutant
DETECTED = ("killed", "timeout", "segfault")
_IGNORE = shutil.ignore_patterns("mutants", ".git", "__pycache__", ".venv", "site", ".hypothesis",
                                 ".pytest_cache", ".ruff_cache", "*.egg-info")
_LINE = re.compile(r"^\s*(?P<name>[\w.]+__mutmut_\d+):\s*(?P<status>[\w ]+?)\s*$")


def _tests_for(module: str) -> list[str]:
    extra = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob(f"test_mutants{module}*.py"))
    return MODULES[module] + extra


# the slow tests (seconds each, end to end) would cost their time for every surviving mutant
_PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "-x", "-m", "not slow"]


def _source(module: str) -> str:
    """The module's file, wherever it lives below src/predstab (the domain sub-packages)."""
    found = sorted((ROOT / "src" / "predstab").rglob(f"{module}.py"))
    if len(found) != 1:
        raise ValueError(f"module {module!r}: expected one file src/predstab/**/{module}.py, found {found}")
    return str(found[0].relative_to(ROOT))


def _deselect() -> list[str]:
    return [arg for test in DESELECT for arg in ("--deselect", test)]


def _config(module: str) -> str:
    def toml_list(items):
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    return ("[tool.mutmut]\n"
            'source_paths = ["src"]\n'
            f'only_mutate = {toml_list([_source(module)])}\n'
            f"pytest_add_cli_args_test_selection = {toml_list(_tests_for(module))}\n"
            f"pytest_add_cli_args = {toml_list(_PYTEST_ARGS + _deselect())}\n"
            'also_copy = ["validation", "tests"]\n')


def _with_config(pyproject: str, section: str) -> str:
    # drop the project's own [tool.mutmut] section (up to the next table) and append this one
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    return text.rstrip() + "\n\n" + section


def measure(module: str, *, mutmut: str, max_children: int, keep: Path | None = None) -> dict:
    """Run mutmut on ``src/predstab/<module>.py`` in a scratch copy; return the counts."""
    work = Path(tempfile.mkdtemp(prefix=f"mutation{module}-")) if keep is None else keep
    try:
        for name in ("src", "tests", "validation"):
            shutil.copytree(ROOT / name, work / name, ignore=_IGNORE, dirs_exist_ok=True)
        (work / "pyproject.toml").write_text(
            _with_config((ROOT / "pyproject.toml").read_text(), _config(module)))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        subprocess.run([mutmut, "run", "--max-children", str(max_children)], cwd=work, env=env,
                       stdout=subprocess.DEVNULL, check=False)
        out = subprocess.run([mutmut, "results", "--all", "true"], cwd=work, env=env,
                             capture_output=True, text=True, check=True).stdout
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    statuses = {}
    for line in out.splitlines():
        m = _LINE.match(line)
        if m:
            statuses[m["name"]] = m["status"]
    if statuses and set(statuses.values()) == {"not checked"}:
        raise RuntimeError(f"mutmut checked no mutant of {module}: its test run on the unmutated code "
                           f"failed (run `mutmut run` in {work} with --keep to see why)")
    counts = Counter(statuses.values())
    equivalent = sorted(n for n, s in statuses.items() if n in EQUIVALENT and s not in DETECTED)
    for n in equivalent:
        counts[statuses[n]] -= 1
    killed = sum(counts.get(s, 0) for s in DETECTED)
    alive = sum(v for k, v in counts.items() if k not in DETECTED + ("skipped", "not checked"))
    survived = sorted(n for n, s in statuses.items() if s not in DETECTED and n not in EQUIVALENT)
    return {"module": module, "mutants": len(statuses), "killed": killed, "not_killed": alive,
            "equivalent": len(equivalent), "counts": dict(counts),
            "score": killed / (killed + alive) if killed + alive else float("nan"),
            "survivors": survived, "tests": _tests_for(module)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"modules (default: all of {', '.join(MODULES)})")
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--mutmut", default=str(Path(sys.executable).with_name("mutmut")))
    parser.add_argument("--json", type=Path, help="write the counts and the surviving mutants' names")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (for `mutmut show`)")
    args = parser.parse_args(argv)
    modules = args.modules or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; choose from {list(MODULES)}")
    rows = []
    print(f"{'module':<16}{'mutants':>8}{'killed':>8}{'alive':>7}{'equiv.':>7}{'score':>8}", flush=True)
    for module in modules:
        keep = None if args.keep is None else args.keep / module
        row = measure(module, mutmut=args.mutmut, max_children=args.max_children, keep=keep)
        rows.append(row)
        print(f"{module + '.py':<16}{row['mutants']:>8}{row['killed']:>8}{row['not_killed']:>7}"
              f"{row['equivalent']:>7}{row['score']:>8.1%}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
