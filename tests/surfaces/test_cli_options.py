"""One name per option across the commands (issue 24, item 5): the options are spelled as the
Python parameters they set, an earlier name is refused naming the new one (exit code 2, never
read as something else), and every rename is listed in CHANGELOG.md."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from predstab.cli import build_parser
from predstab.cli._parser import RENAMED
from tests.surfaces._cli import assert_one_line_error, predstab_cli, run

CHANGELOG = (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text(encoding="utf-8")
LISTED = set(re.findall(r"^- `predstab (\w+)`: `(--[\w-]+)` -> `(--[\w-]+)`", CHANGELOG, flags=re.M))
DECLARED = {(command, old, new) for command, renames in RENAMED.items() for old, (new, _) in renames.items()}
PARSER = build_parser()
COMMANDS = next(a for a in PARSER._actions if a.dest == "command").choices


def _live(command):
    """``{option string: action}`` of the options a command accepts (renamed ones excluded)."""
    return {s: a for a in COMMANDS[command]._actions if a.dest != argparse.SUPPRESS for s in a.option_strings}


def test_every_rename_is_in_the_changelog_and_every_listed_one_is_declared():
    assert DECLARED == LISTED, (sorted(DECLARED - LISTED), sorted(LISTED - DECLARED))
    assert len(DECLARED) == 13


@pytest.mark.parametrize(("command", "old", "new"), sorted(DECLARED))
def test_an_earlier_option_name_is_refused_naming_the_new_one(capsys, command, old, new):
    assert new in _live(command) and old not in _live(command)
    head = {"tune": ["t.csv", "--target", "y"], "stability": ["p.csv", "--scale", "metric"],
            "agree": ["r.csv", "--measure", "alpha"], "compare": ["s.csv", "--test", "wilcoxon"],
            "power": ["seeds", "--effect", "0.5"]}[command]
    # with a value and without one, before or after the other arguments: the same one line
    for args in ([*head, old, "0.9"], [*head, old], [old, "x", *head]):
        code, out, err = run(capsys, command, *args)
        said = f"predstab {command}: error: {old} was renamed {new} in predstab 0.2.0 ("
        assert_one_line_error(code, err, said)
        assert out == ""


@pytest.mark.slow
def test_the_installed_command_refuses_an_earlier_name_before_reading_any_file(tmp_path):
    proc = predstab_cli("agree", tmp_path / "missing.csv", "--measure", "alpha", "--level", "ordinal")
    assert_one_line_error(proc.returncode, proc.stderr, "--level was renamed --scale",
                          "the measurement level of --measure alpha")


def test_an_option_means_one_thing_in_every_command():
    seen = {}
    for command in COMMANDS:
        for option, action in _live(command).items():
            seen.setdefault(option, []).append((command, action))
    for option, uses in seen.items():
        dests = {action.dest for _, action in uses}
        assert len(dests) == 1, (option, dests)
        types = {getattr(action.type, "__name__", action.type) for _, action in uses}
        assert len(types) == 1, (option, types)
    # the vocabulary of the Python API: confidence_level, significance, n_resamples, scale, categories
    for option, default in (("--confidence-level", 0.95), ("--significance", 0.05)):
        assert {action.default for _, action in seen[option]} == {default}, option
    assert {c for c, _ in seen["--confidence-level"]} == {"agree", "compare"}
    assert {c for c, _ in seen["--significance"]} == {"compare", "power"}
    assert {c for c, _ in seen["--categories"]} == {"tune", "stability", "agree"}
    assert {c for c, _ in seen["--resamples"]} == {"tune", "compare"}
    assert {c for c, _ in seen["--scale"]} == {"stability", "agree"}
    assert {c for c, _ in seen["--test"]} == {"compare"}  # tune's file of test objects: --test-data
    for retired in ("--alpha", "--level", "--levels", "--conf-level", "--bootstrap", "--old", "--new",
                    "--no-correct"):
        assert retired not in seen, retired


def test_options_are_never_abbreviated(capsys):
    # an abbreviation would read --confidence as --confidence-level today and as anything tomorrow
    code, _, err = run(capsys, "power", "seeds", "--effect", "0.5", "--sig", "0.1")
    assert_one_line_error(code, err, "unrecognized arguments: --sig 0.1")
    code, out, err = run(capsys, "power", "seeds", "--effect", "0.5", "--significance", "0.1")
    assert code == 0 and "significance level 0.1" in out, err
