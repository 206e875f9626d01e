"""Run the fenced code blocks of a documentation page, in order, as a reader would.

One engine for two users: ``tests/test_docs.py`` runs every page's blocks with it (and fails on
an error), and ``docs/_hooks.py`` runs the tutorials' blocks with it when the site is built and
shows what each block printed and drew right after the block (issue 22, item 22).

The Python blocks of a page share one namespace (one session); the shell blocks' ``predstab``
commands run through :func:`predstab.cli.main` and must exit 0. Blocks that cannot run here are
listed below with the reason; a block of any other kind (a new language, a shell command not
listed) is an error, so nothing is skipped silently. A block is also left out when the line
before its fence is ``<!-- docs-test: skip REASON -->``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import textwrap
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

# languages that are not run, and why
NOT_RUN_LANGUAGES = {
    "r": "R code shows the R side of a comparison; R is not installed where the tests run",
    "text": "output, not code",
}
# shell commands that are not run here, and why (matched at the start of the command)
NOT_RUN_COMMANDS = {
    "python3 -m venv": "README's set-up commands: .ci/run runs them verbatim on a fresh machine",
    ". .venv/bin/activate": "README's set-up commands: .ci/run runs them verbatim on a fresh machine",
    "python -m validation": "tests/test_validation.py runs every validation suite",
    "python benchmarks/": "a benchmark takes minutes; its results are on the page",
}

_FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$",
                    flags=re.M | re.S)
_SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s+(?P<reason>.+?)\s*-->\s*$")
_IMAGES = (".png", ".svg", ".jpg")


@dataclass
class Block:
    """One fenced block: its language, code, first line, indentation, span in the page and skip
    reason (None when it runs)."""

    lang: str
    code: str
    line: int
    indent: str
    start: int
    end: int
    skip: str | None


@dataclass
class Run:
    """What a block did when it ran: its printed output and the figures it made (PNG bytes)."""

    block: Block
    ran: bool
    stdout: str = ""
    figures: list = field(default_factory=list)


class BlockError(RuntimeError):
    """A block failed: the message says where."""


def blocks(text):
    """Every fenced block of the Markdown ``text``, in order."""
    out = []
    for match in _FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        out.append(Block(lang=match.group("lang").lower(), code=textwrap.dedent(match.group("body")),
                         line=text.count("\n", 0, match.start()) + 1, indent=match.group("indent"),
                         start=match.start(), end=match.end(), skip=skip and skip.group("reason")))
    return out


def commands(code):
    """The shell commands of a block: continuation lines joined, comments dropped."""
    joined = code.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


# --------------------------------------------------------------------------- input files
def _files_for_cli_pages(folder):
    """The files the shell examples of cli.md name, small and made up (seeded)."""
    rng = np.random.default_rng(13)
    truth = rng.normal(size=40)
    pd.DataFrame(truth[:, None] + rng.normal(scale=0.3, size=(40, 10)),
                 columns=[f"V{j + 1}" for j in range(10)]).to_csv(folder / "pred.csv", index=False)
    pd.DataFrame({"y": rng.normal(size=120)}).to_csv(folder / "y_train.csv", index=False)
    y = rng.choice(["a", "b", "c"], size=150)
    pd.DataFrame({"y": y, "old": np.where(rng.random(150) < 0.7, y, "a"),
                  "new": np.where(rng.random(150) < 0.8, y, "b")}).to_csv(folder / "preds.csv", index=False)
    a = rng.normal(0.80, 0.02, size=100)
    pd.DataFrame({"A": a, "B": a + rng.normal(0.01, 0.01, size=100)}).to_csv(folder / "cv.csv", index=False)
    s = rng.normal(0.8, 0.05, size=15)
    pd.DataFrame({"A": s, "B": s + rng.normal(0.02, 0.02, size=15)}).to_csv(folder / "scores.csv",
                                                                          index=False)
    # ordinal ratings 1-4 of 30 objects by 4 raters, who mostly agree
    grades = np.random.default_rng(14).integers(1, 5, size=30)
    ratings = np.clip(grades[:, None] + np.random.default_rng(15).integers(-1, 2, size=(30, 4)), 1, 4)
    pd.DataFrame(ratings, columns=[f"rater{j + 1}" for j in range(4)]).to_csv(folder / "ratings.csv",
                                                                              index=False)


def _files_for_tuning_page(folder):
    from sklearn.datasets import load_diabetes

    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "yield"})
    frame.iloc[:120, [0, 2, 3, 8, 10]].to_csv(folder / "train.csv", index=False)
    frame.iloc[120:160, [0, 2, 3, 8, 10]].to_csv(folder / "test.csv", index=False)


# the files a page's examples read, written into the folder the page runs in
INPUT_FILES = {"docs/cli.md": _files_for_cli_pages,
               "docs/tutorials/tune-tree-count.md": _files_for_tuning_page}


# --------------------------------------------------------------------------- running
def _images(folder):
    return {p: p.stat().st_mtime_ns for p in Path(folder).rglob("*") if p.suffix in _IMAGES}


def _figures_in(namespace):
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    found = {}
    for value in namespace.values():
        fig = value.figure if isinstance(value, Axes) else value
        if isinstance(fig, Figure):
            found[id(fig)] = fig
    return found


def _png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def _run_python(block, where, namespace, figures):
    import matplotlib.pyplot as plt

    if figures:
        files_before, figs_before = _images(os.getcwd()), _figures_in(namespace)
        pyplot_before = set(plt.get_fignums())
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warnings are the pages' to show, not errors here
        exec(compile(block.code, where, "exec"), namespace)  # noqa: S102
    made = []
    if figures:
        # the images the block saved; else the figures it made and kept (a name, or pyplot's)
        files = _images(os.getcwd())
        saved = sorted(p for p, t in files.items() if files_before.get(p) != t)
        if saved:
            made = [p.read_bytes() for p in saved if p.suffix == ".png"]
        else:
            new = [f for key, f in _figures_in(namespace).items()
                   if key not in figs_before or figs_before[key] is not f]
            new += [plt.figure(k) for k in plt.get_fignums() if k not in pyplot_before
                    and id(plt.figure(k)) not in {id(f) for f in new}]
            made = [_png(f) for f in new]
    return stdout.getvalue(), made


def _run_shell(block, where):
    from predstab.cli import main

    stdout = io.StringIO()
    for command in commands(block.code):
        if any(command.startswith(prefix) for prefix in NOT_RUN_COMMANDS):
            continue
        argv = shlex.split(command, comments=True)
        if argv[0] != "predstab":
            raise BlockError(f"{where}: `{command}` is neither a predstab command nor listed in "
                             "NOT_RUN_COMMANDS")
        stderr = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(argv[1:])
        if code != 0:
            raise BlockError(f"{where}: `{command}` exited {code}: {stderr.getvalue()}")
    return stdout.getvalue()


def run_page(text, name, folder, *, figures=False):
    """Run every block of the page ``text`` (called ``name``) in ``folder``; return its Runs.

    ``folder`` receives the page's input files (:data:`INPUT_FILES`) and is the working
    directory while the blocks run. With ``figures=True`` each Run also holds the figures its
    block made as PNG bytes: the images it saved, else the figures it left in a variable or in
    pyplot. Raises :class:`BlockError` (or the block's own exception) on a failing block.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    if name in INPUT_FILES:
        INPUT_FILES[name](folder)
    namespace = {"__name__": "__docs__"}
    runs = []
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        for block in blocks(text):
            where = f"{name}:{block.line}"
            if block.skip or block.lang in NOT_RUN_LANGUAGES:
                runs.append(Run(block, ran=False))
            elif block.lang == "python":
                stdout, made = _run_python(block, where, namespace, figures)
                runs.append(Run(block, ran=True, stdout=stdout, figures=made))
            elif block.lang in ("bash", "sh", "shell"):
                runs.append(Run(block, ran=True, stdout=_run_shell(block, where)))
            else:
                raise BlockError(f"{where}: a ```{block.lang} block: run it here or list the language in "
                                 "NOT_RUN_LANGUAGES with a reason")
    finally:
        os.chdir(cwd)
        plt.close("all")
    return runs
