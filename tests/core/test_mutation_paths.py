"""The mutation runs' paths exist (issue 24, item 8): the modules and test files listed in
``benchmarks/mutation_scores.py`` (``MODULES``, ``DESELECT``) and in pyproject's ``[tool.mutmut]``,
so that a move of a module or a test file cannot silently leave them pointing at nothing.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "benchmarks" / "mutation_scores.py"
    spec = importlib.util.spec_from_file_location("mutation_scores", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]


@pytest.mark.parametrize("module", sorted(SCRIPT.MODULES))
def test_every_module_and_its_test_files_exist(module):
    assert (ROOT / SCRIPT.source(module)).is_file(), SCRIPT.source(module)
    assert SCRIPT.MODULES[module], f"{module} has no test file"
    missing = [test for test in SCRIPT.MODULES[module] if not (ROOT / test).is_file()]
    assert missing == [], f"{module}: test files not found: {missing}"


def test_pyproject_lists_the_scripts_modules_and_tests():
    assert CONFIG["source_paths"] == ["src"]
    assert sorted(CONFIG["only_mutate"]) == sorted(SCRIPT.source(m) for m in SCRIPT.MODULES)
    tests = {test for files in SCRIPT.MODULES.values() for test in files}
    assert sorted(CONFIG["pytest_add_cli_args_test_selection"]) == sorted(tests)
    assert [p for p in CONFIG["also_copy"] if not (ROOT / p).exists()] == []
    args = CONFIG["pytest_add_cli_args"]
    deselected = [b for a, b in zip(args[:-1], args[1:], strict=True) if a == "--deselect"]
    assert sorted(deselected) == sorted(SCRIPT.DESELECT)


_ARGS = CONFIG["pytest_add_cli_args"]
DESELECTED = sorted({*SCRIPT.DESELECT,
                     *(b for a, b in zip(_ARGS[:-1], _ARGS[1:], strict=True) if a == "--deselect")})


@pytest.mark.parametrize("test_id", DESELECTED)
def test_deselected_tests_exist(test_id):
    path, _, name = test_id.partition("::")
    text = (ROOT / path).read_text()
    assert re.search(rf"^def {re.escape(name)}\(", text, re.M), test_id


def test_short_names_resolve_to_the_paths():
    assert SCRIPT.resolve("_icc") == "agreement/_icc"
    assert SCRIPT.resolve("src/predstab/agreement/_icc.py") == "agreement/_icc"
    with pytest.raises(ValueError, match="'_nothing'"):
        SCRIPT.resolve("_nothing")


def test_wilson_interval_against_the_formula():
    # Wilson (1927): (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.96 (95 %);
    # 91 of 100: 83.8 % to 95.2 % (docs/mutation.md's _tune.py sample)
    low, high = SCRIPT.wilson(91, 100)
    assert low == pytest.approx(0.837738, abs=1e-6)
    assert high == pytest.approx(0.951927, abs=1e-6)
    low, high = SCRIPT.wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(1.959964**2 / (10 + 1.959964**2), abs=1e-6)
