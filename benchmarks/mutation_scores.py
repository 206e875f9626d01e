"""Mutation score per core module (issue 12, item 8; issue 24, item 8), with mutmut.

Each module is mutated on its own, in a scratch copy of the project, against the test files
that exercise it (``MODULES`` below, keyed by the module's path under ``src/predstab``;
``tests/core/test_mutation_paths.py`` checks that every path listed here and in pyproject's
``[tool.mutmut]`` exists). The table printed (and written with ``--json``) is what
``docs/mutation.md`` reports::

    pip install -e ".[dev]"            # brings mutmut
    nice -n 19 python benchmarks/mutation_scores.py agreement/_icc _twopl --json mutation.json

A module is named by its path (``agreement/_icc``) or, where unique, its file name (``_icc``).
Without module names every module of ``MODULES`` is measured (several hours on a 2-core
machine). ``--mutmut`` names the mutmut executable (default: the one beside this Python).

``--sample N`` runs a simple random sample of N of the module's mutants instead of all of them:
the sorted mutant names shuffled with ``random.Random(--seed)`` (default seed 24), the first N
kept, run ``--batch`` at a time, so that the batches finished when a run is stopped are
themselves a simple random sample (the JSON is rewritten after every batch). The score is then
given with a 95 % Wilson interval.

The score is detected / (detected + survived + suspicious + no tests), "detected" being killed,
timeout (the tests used more than ``--timeout-multiplier`` x 2 times their usual CPU time, mutmut's
``timeout_multiplier``, default 15: an endless loop) or segfault; mutants listed in ``EQUIVALENT``
(changes no test can see: a message text, a dead default) are reported apart and counted neither
way, the reason next to each.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "predstab"

# module (path under src/predstab, without .py) -> test files that exercise it (relative to the
# project root); the tests run without the slow ones (-m "not slow")
_PHI_PSI = ["tests/stability/test_phi_psi_values.py", "tests/stability/test_phi_psi_inputs.py",
            "tests/stability/test_phi_psi_counting.py", "tests/stability/test_phi_psi_object_intervals.py",
            "tests/stability/test_stability_result.py", "tests/stability/test_phi_psi_properties.py",
            "tests/stability/test_stability_intervals.py",
            "tests/stability/test_stability_interval_shapes.py", "tests/stability/test_scales_encodings.py",
            "tests/stability/test_scales_paths.py", "tests/stability/test_interval_terms.py"]
_TUNING = ["tests/ensembles/test_tune_methods.py", "tests/ensembles/test_tune_closed_form.py",
           "tests/ensembles/test_tune_recommendation.py", "tests/ensembles/test_tune_arguments.py",
           "tests/ensembles/test_tune_result.py", "tests/ensembles/test_tune_rule.py",
           "tests/ensembles/test_tune_config_pools.py", "tests/ensembles/test_tune_values.py",
           "tests/ensembles/test_tune_pins.py", "tests/ensembles/test_floored_icc.py"]
_STACKS = "tests/core/test_stacks.py"
MODULES: dict[str, list[str]] = {
    "stability/_stability": _PHI_PSI,
    "stability/_disagreement": [*_PHI_PSI, "tests/stability/test_disagreement_pins.py"],
    # (and the heavy-tail note's own file: the note is written in _object_intervals)
    "stability/_object_intervals": [*_PHI_PSI, "tests/stability/test_intervals_tails_note.py"],
    "stability/_share_box": _PHI_PSI,  # moved out of _object_intervals unchanged
    "stability/_result": _PHI_PSI,
    "stability/_scales": _PHI_PSI,
    "stability/_registry": ["tests/stability/test_measure_registry.py", *_TUNING],
    # the overall interval's targets and baseline error (issue 21) have their own file
    "stability/_overall_interval": [*_PHI_PSI, "tests/stability/test_overall_interval.py"],
    "stability/_shape_check": ["tests/stability/test_interval_terms.py", "tests/stability/test_intervals_shape.py", "tests/stability/test_intervals_tails_note.py", "tests/stability/test_shape_check_tail.py", "tests/stability/test_shape_check_terms.py"],  # noqa: E501
    # agreement: each module against its topic file(s) in tests/agreement/ (which hold the former
    # test_mutants_{icc,fleiss,krippendorff}.py) and the stacks of rating matrices (the vectorised
    # paths, tests/core/test_stacks.py, 4 s); irrCAC's weighted Fleiss' kappa and alpha, now in
    # _fleiss and _krippendorff, are tested in test_cac.py
    "agreement/_icc": ["tests/agreement/test_icc.py", _STACKS],
    "agreement/_fleiss": ["tests/agreement/test_fleiss.py", "tests/agreement/test_cac.py", _STACKS],
    "agreement/_krippendorff": ["tests/agreement/test_krippendorff.py", "tests/agreement/test_cac.py",
                                "tests/agreement/test_cac_dist.py",
                                "tests/agreement/test_krippendorff_metrics.py", _STACKS],
    # irrCAC's variance of alpha, moved unchanged out of _krippendorff: _krippendorff's tests
    "agreement/_krippendorff_gwet": ["tests/agreement/test_krippendorff.py", "tests/agreement/test_cac.py",
                                     "tests/agreement/test_cac_dist.py",
                                     "tests/agreement/test_krippendorff_metrics.py",
                                     "tests/agreement/test_krippendorff_gwet_pins.py"],
    "agreement/_icc_reml": ["tests/agreement/test_icc_reml.py"],
    # the peers' features (issue 38), each against its own file
    "compare/_posthoc": ["tests/compare/test_posthoc.py"],
    "compare/_unconditional": ["tests/compare/test_mcnemar_unconditional.py"],
    "compare/_drivers": ["tests/compare/test_drivers.py"],
    # issue 33's power, bootstrap and t-test modules (never measured before 2026-12-07's third round)
    "compare/_power": ["tests/compare/test_power.py", "tests/compare/test_r_reference.py",
                       "tests/compare/test_power_pins.py"],
    "compare/_bootstrap": ["tests/compare/test_bootstrap.py", "tests/compare/test_resampling_engines.py",
                           "tests/compare/test_scale_invariance_compare.py",
                           "tests/compare/test_bootstrap_pins.py"],
    "compare/_cv": ["tests/compare/test_t_tests_and_wilcoxon.py", "tests/compare/test_wilcoxon_zsplit.py",
                    "tests/compare/test_r_reference.py", "tests/compare/test_scale_invariance_compare.py",
                    "tests/compare/test_cv_pins.py"],
    # rliable's resampling, aggregates and profile bands (item 6)
    "compare/_summaries": ["tests/compare/test_rliable_intervals.py", "tests/compare/test_run_summaries.py"],
    "compare/_profile_bands": ["tests/compare/test_rliable_intervals.py"],
    # irr's agree and maxwell_re (test_irr.py), irrCAC's pairwise percent agreement (test_cac.py)
    "agreement/_percent": ["tests/agreement/test_irr.py", "tests/agreement/test_cac.py", _STACKS],
    "ensembles/_twopl": ["tests/ensembles/test_twopl.py"],
    # the tuning (~3,000 mutants): the topic files of tests/ensembles, tiny data for most tests
    "ensembles/_tune": _TUNING,
    "ensembles/_tune_config": _TUNING,
    "ensembles/_tune_strategies": _TUNING,
    "ensembles/_tune_table": _TUNING,
    "ensembles/_recommend": [*_TUNING, "tests/ensembles/test_recommend_pins.py"],
    "ensembles/_tune_result": _TUNING,
    # the recommendation's interval (issue 21, item 7): its fast tests and the coverage file's
    "ensembles/_recommendation_interval": [*_TUNING, "tests/ensembles/test_recommendation_interval.py",
                                           "tests/ensembles/test_tuning_coverage.py"],
    "ensembles/_pool": ["tests/ensembles/test_pool.py", "tests/ensembles/test_pool_closed_form.py",
                        "tests/ensembles/test_members.py", "tests/ensembles/test_members_ensembles.py",
                        "tests/ensembles/test_pool_members_and_progress.py"],
    # pools of any ensemble's members (issue 25)
    "ensembles/_members": ["tests/ensembles/test_members.py", "tests/ensembles/test_members_ensembles.py",
                           "tests/ensembles/test_pool_members_and_progress.py"],
    "ensembles/_closed_form": ["tests/ensembles/test_closed_form_functions.py",
                               "tests/ensembles/test_pool_closed_form.py",
                               "tests/ensembles/test_floored_icc.py",
                               "tests/ensembles/test_closed_form_pins.py"],
    # ClosedFormResult (its print, covers, to_frame, the floored ICC's text)
    "ensembles/_closed_form_result": ["tests/ensembles/test_closed_form_functions.py",
                                      "tests/ensembles/test_pool_closed_form.py",
                                      "tests/ensembles/test_floored_icc.py",
                                      "tests/ensembles/test_closed_form_pins.py"],
    # the two-class vote estimators beyond half the pool and the cluster pool (issue 37)
    "ensembles/_vote_mixture": ["tests/ensembles/test_vote_mixture.py",
                                "tests/ensembles/test_closed_form_functions.py"],
    # the cluster pool against one in-process cluster (threads: the mutants reach the workers, and
    # a run takes seconds); test_distributed.py's LocalCluster of worker processes stays in CI
    "ensembles/_distributed": ["tests/ensembles/test_distributed_inprocess.py"],
    # the forest layer (per-tree predictions, in-bag masks, the prediction cache; issue 37): its own
    # tests and the pool's (the cache's chunks and tiles, fresh_array)
    "ensembles/_forest": ["tests/ensembles/test_forest.py", "tests/ensembles/test_pool.py",
                          "tests/ensembles/test_forest_pins.py"],
    # the loky / multiprocessing tests of repeated_predictions are marked slow: left out
    "ensembles/_repeated": ["tests/ensembles/test_repeated_predictions.py"],
    # the file layer (was _io): test_reading.py / test_writing.py run it in-process on tiny files;
    # test_cli_inputs.py and test_cli_reports.py run the CLI only as a subprocess, which mutmut cannot
    # see; test_cli.py runs it in-process but takes ~45 s (tune and demo runs), which every surviving
    # mutant of a function they reach would cost
    "_core/_reading": ["tests/surfaces/test_cli_files.py", "tests/surfaces/test_reading.py"],
    # (test_cli_output.py and test_atomic_writes_and_interrupts.py: the staged output folders and the
    # interrupts, 4 s, their in-process tests)
    "_core/_writing": ["tests/surfaces/test_cli_files.py", "tests/surfaces/test_writing.py",
                       "tests/surfaces/test_cli_output.py",
                       "tests/surfaces/test_atomic_writes_and_interrupts.py"],
    # the agreement coefficients whose counting and variances were reworked for speed (issue 14)
    "agreement/_cac": ["tests/agreement/test_cac.py", _STACKS, "tests/agreement/test_cac_pins.py"],
    "agreement/_cac_tables": ["tests/agreement/test_cac.py", _STACKS],
    "agreement/_alpha": ["tests/agreement/test_cronbach.py", _STACKS],
    # the gate (issue 32): what an input means, for the API and the CLI; its rules' own tests
    "_core/_gate": ["tests/core/test_gate.py", "tests/surfaces/test_reading.py"],
    # the one convention for degenerate data (1 - D_o / D_e, negligible parts): its own tests and pins
    "_core/_convention": ["tests/core/test_convention.py", "tests/core/test_convention_pins.py"],
    # the readers behind the gate: rating matrices and predstab.compare's scores and counts, against
    # the file that pins their values and messages
    "_core/_ratings": ["tests/core/test_gate_readers.py"],
    "compare/_common": ["tests/core/test_gate_readers.py"],
}

# tests that check the file a warning points at: under mutmut every call passes through its
# trampoline (extra stack frames), so they fail on the unmutated code and are left out
DESELECT = ["tests/stability/test_phi_psi_values.py::test_warnings_point_at_the_callers_line",
            "tests/agreement/test_irr.py::test_data_warnings_point_at_the_callers_line",
            "tests/agreement/test_irr.py::test_cohen_data_warnings_point_at_the_callers_line",
            "tests/agreement/test_irr.py::test_degenerate_warnings_point_at_the_callers_line",
            "tests/core/test_stacks.py::test_icc_stack_warns_once_per_kind_with_item_count",
            "tests/core/test_stacks.py::test_stack_warnings_point_at_the_caller"]

# mutmut options of one module's run. The cluster pool's tests start dask.distributed's threads;
# mutmut's default runner forks every mutant from the process that ran the tests for its stats,
# and a fork of a process whose dask threads ran cannot use them (the forked test session hangs
# until mutmut's wall timeout, counted as a detection): fork each mutant from a fork server that
# ran no test instead
OPTIONS: dict[str, dict[str, str]] = {"ensembles/_distributed": {"process_isolation": "forkserver"}}

# mutant name -> why no test can tell it from the original (counted neither killed nor survived)
EQUIVALENT: dict[str, str] = {}

# a test run that fails, or is stopped after its CPU limit (mutmut's "timeout", e.g. an endless
# loop), or crashes, has detected the mutant
DETECTED = ("killed", "timeout", "segfault")
_IGNORE = shutil.ignore_patterns("mutants", ".git", "__pycache__", ".venv", "site", ".hypothesis",
                                 ".pytest_cache", ".ruff_cache", "*.egg-info")
_LINE = re.compile(r"^\s*(?P<name>[\w.]+__mutmut_\d+):\s*(?P<status>[\w ]+?)\s*$")
# the slow tests (seconds each, end to end) would cost their time for every surviving mutant
_PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "-x", "-m", "not slow"]
# mutmut's own steps before the first mutant, run in the scratch copy: write the mutants (and
# their names, in mutants/**/*.meta) without running any test, so that a sample can be drawn
_GENERATE = """
import os
import mutmut.__main__ as m
m.set_mutant_under_test("mutant_generation")
os.makedirs("mutants", exist_ok=True)
m.copy_src_dir()
m.copy_also_copy_files()
m.setup_source_paths()
m.store_lines_covered_by_tests()
m.create_mutants(1)
"""


def resolve(name: str) -> str:
    """``agreement/_icc``, ``agreement/_icc.py``, ``src/predstab/agreement/_icc.py`` or a unique ``_icc``."""
    key = name.removeprefix("src/predstab/").removesuffix(".py")
    if key in MODULES:
        return key
    found = [m for m in MODULES if m.rpartition("/")[2] == key]
    if len(found) != 1:
        raise ValueError(f"module {name!r}: expected one of {list(MODULES)} (or a unique file name); "
                         f"found {found or 'none'}")
    return found[0]


def source(module: str) -> str:
    """The module's file relative to the project root."""
    return f"src/predstab/{module}.py"


def _deselect() -> list[str]:
    return [arg for test in DESELECT for arg in ("--deselect", test)]


def _config(module: str, timeout_multiplier: float | None) -> str:
    def toml_list(items):
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    text = ("[tool.mutmut]\n"
            'source_paths = ["src"]\n'
            f"only_mutate = {toml_list([source(module)])}\n"
            f"pytest_add_cli_args_test_selection = {toml_list(MODULES[module])}\n"
            f"pytest_add_cli_args = {toml_list(_PYTEST_ARGS + _deselect())}\n"
            'also_copy = ["validation", "tests"]\n')
    if timeout_multiplier is not None:
        text += f"timeout_multiplier = {timeout_multiplier}\n"
    for key, value in OPTIONS.get(module, {}).items():
        text += f"{key} = {json.dumps(value)}\n"
    return text


def _with_config(pyproject: str, section: str) -> str:
    # drop the project's own [tool.mutmut] section (up to the next table) and append this one
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    return text.rstrip() + "\n\n" + section


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval for a proportion k / n (95 % by default)."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half, centre + half)


def _statuses(work: Path, mutmut: str, env: dict) -> dict[str, str]:
    out = subprocess.run([mutmut, "results", "--all", "true"], cwd=work, env=env,
                         capture_output=True, text=True, check=True).stdout
    return {m["name"]: m["status"] for m in map(_LINE.match, out.splitlines()) if m}


def _count(module: str, statuses: dict[str, str], n_mutants: int, sampled: bool) -> dict:
    counts = Counter(statuses.values())
    equivalent = sorted(n for n, s in statuses.items() if n in EQUIVALENT and s not in DETECTED)
    for n in equivalent:
        counts[statuses[n]] -= 1
    killed = sum(counts.get(s, 0) for s in DETECTED)
    alive = sum(v for k, v in counts.items() if k not in DETECTED + ("skipped", "not checked"))
    survived = sorted(n for n, s in statuses.items()
                      if s not in DETECTED + ("not checked",) and n not in EQUIVALENT)
    low, high = wilson(killed, killed + alive)
    return {"module": source(module), "mutants": n_mutants, "checked": killed + alive + len(equivalent),
            "sampled": sampled, "killed": killed, "not_killed": alive, "equivalent": len(equivalent),
            "counts": dict(counts), "score": killed / (killed + alive) if killed + alive else float("nan"),
            "wilson_95": [low, high], "survivors": survived, "tests": MODULES[module]}


def measure(module: str, *, mutmut: str, max_children: int, keep: Path | None = None,
            sample: int | None = None, seed: int = 24, batch: int = 50,
            timeout_multiplier: float | None = None, on_batch=None) -> dict:
    """Run mutmut on ``src/predstab/<module>.py`` in a scratch copy; return the counts.

    With ``sample``, only the first ``sample`` mutants of a seeded shuffle of the sorted names
    are run, ``batch`` at a time; ``on_batch(row)`` is called with the counts so far after each.
    In a ``keep`` folder used before, the mutants detected then are not run again.
    """
    work = Path(tempfile.mkdtemp(prefix=f"mutation{module.replace('/', '-')}-")) if keep is None else keep
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        for name in ("src", "tests", "validation"):
            # shutil.copy, not copy2: a fresh mtime makes mutmut write the mutants of a changed file again
            shutil.copytree(ROOT / name, work / name, ignore=_IGNORE, dirs_exist_ok=True,
                            copy_function=shutil.copy)
        (work / "pyproject.toml").write_text(
            _with_config((ROOT / "pyproject.toml").read_text(), _config(module, timeout_multiplier)))
        if sample is None:
            subprocess.run([mutmut, "run", "--max-children", str(max_children)], cwd=work, env=env,
                           stdout=subprocess.DEVNULL, check=False)
            statuses = _statuses(work, mutmut, env)
            if statuses and set(statuses.values()) == {"not checked"}:
                raise RuntimeError(f"mutmut checked no mutant of {module}: its test run on the unmutated "
                                   f"code failed (run `mutmut run` in {work} with --keep to see why)")
            return _count(module, statuses, len(statuses), sampled=False)
        python = str(Path(mutmut).with_name("python"))
        subprocess.run([python, "-c", _GENERATE], cwd=work, env=env, stdout=subprocess.DEVNULL, check=True)
        before = _statuses(work, mutmut, env)
        names = sorted(before)
        random.Random(seed).shuffle(names)
        chosen = names[:sample]
        sampled = len(chosen) < len(names)
        # in a kept folder run again (--keep), mutants detected before stay detected (tests are only
        # added) unless mutmut resets them (a changed configuration or function): each batch takes
        # the next mutants of the sample that are neither detected nor run by this call
        row = _count(module, {}, len(names), sampled=sampled)
        statuses, tries = before, Counter()
        # mutmut 3.8 forgets every result once the test files change (a re-run with --keep after
        # tests were added): a mutant detected before stays detected if the module is unchanged
        stamp, digest = work / "mutation-source.sha256", hashlib.sha256((ROOT / source(module)).read_bytes())
        carried = ({n for n, s in before.items() if s in DETECTED}
                   if stamp.is_file() and stamp.read_text() == digest.hexdigest() else set())
        stamp.write_text(digest.hexdigest())

        def waiting(name):
            # not run yet by this call, or run once and left unchecked (mutmut lost its result)
            status = statuses.get(name)
            return status not in DETECTED and (tries[name] == 0
                                               or status == "not checked" and tries[name] < 2)

        while True:
            todo = [n for n in chosen if waiting(n)]
            if not todo:
                break
            part = todo[:batch]
            tries.update(part)
            subprocess.run([mutmut, "run", "--max-children", str(max_children), *part], cwd=work, env=env,
                           stdout=subprocess.DEVNULL, check=False)
            statuses = {n: before[n] if n in carried else s for n, s in _statuses(work, mutmut, env).items()}
            # the sample's prefix whose every mutant is detected or was run by this call
            end = next((i for i, n in enumerate(chosen) if waiting(n)), len(chosen))
            done = {n: statuses.get(n, "not checked") for n in chosen[:end]}
            if done and set(done.values()) == {"not checked"}:
                raise RuntimeError(f"mutmut checked no mutant of {module}: its test run on the unmutated "
                                   f"code failed (run `mutmut run` in {work} with --keep to see why)")
            row = _count(module, done, len(names), sampled=sampled)
            if on_batch is not None:
                on_batch(row)
        return row
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _load() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"modules (default: all of {', '.join(MODULES)})")
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--mutmut", default=str(Path(sys.executable).with_name("mutmut")))
    parser.add_argument("--json", type=Path, help="write the counts and the surviving mutants' names")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (for `mutmut show`)")
    parser.add_argument("--sample", type=int, help="a simple random sample of this many mutants per module")
    parser.add_argument("--seed", type=int, default=24, help="seed of the sample (default 24)")
    parser.add_argument("--batch", type=int, default=50, help="mutants per mutmut run of a sample")
    parser.add_argument("--timeout-multiplier", type=float,
                        help="mutmut's (default 15): CPU limit = 2 x this x the tests' time")
    args = parser.parse_args(argv)
    try:
        modules = [resolve(m) for m in args.modules] or list(MODULES)
    except ValueError as exc:
        parser.error(str(exc))
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample must be a positive number of mutants; got {args.sample}")
    rows: list[dict] = []

    def save(row, final=False):
        if args.json:
            args.json.write_text(json.dumps([*rows, row] if not final else rows, indent=1) + "\n")

    print(f"{'module':<36}{'mutants':>8}{'checked':>8}{'killed':>8}{'alive':>7}{'score':>8}  95 % interval",
          flush=True)
    for module in modules:
        keep = None if args.keep is None else args.keep / module.replace("/", "-")
        started, load = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), _load()
        row = measure(module, mutmut=args.mutmut, max_children=args.max_children, keep=keep,
                      sample=args.sample, seed=args.seed, batch=args.batch,
                      timeout_multiplier=args.timeout_multiplier,
                      on_batch=lambda r, s=started, ld=load: save({**r, "started": s, "load_at_start": ld}))
        row.update(started=started, finished=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                   load_at_start=load, load_at_end=_load(), seed=args.seed if args.sample else None)
        rows.append(row)
        low, high = row["wilson_95"]
        print(f"{row['module']:<36}{row['mutants']:>8}{row['checked']:>8}{row['killed']:>8}"
              f"{row['not_killed']:>7}{row['score']:>8.1%}  {low:.1%} to {high:.1%}", flush=True)
        save(row, final=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
