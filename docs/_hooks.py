"""mkdocs hooks: the generated parts of the documentation site.

Placeholders in the pages are replaced at build time, so the site never drifts from the code:

- ``<!-- predstab:setup -->``      the two set-up commands, read from README.md;
- ``<!-- predstab:validation -->`` the parity table of ``python -m validation --markdown``;
- ``<!-- predstab:api -->``        a mkdocstrings block for every public name that exists;
- ``<!-- predstab:cli -->``        ``--help`` of every ``predstab`` command.

Nav entries whose page does not exist (yet) are dropped, and the Benchmarks section lists
whatever ``docs/benchmarks/*.md`` holds (less the pages the nav lists elsewhere, and with the
headings' backticks dropped: a nav shows plain text), so pages written by other areas appear
when they land.

:class:`NumpydocMath` is a griffe extension (mkdocs.yml loads it for mkdocstrings): it turns
the docstrings' reST ``:math:`...``` roles and ``.. math::`` blocks into the ``\\(...\\)`` and
``$$...$$`` of pymdownx.arithmatex, which MathJax typesets; numpydoc has no other math syntax.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _importable():
    """Make ``predstab`` (src/) and ``validation`` importable; mkdocs restores sys.path after
    loading a hook module, so this runs when a hook is called, not at import."""
    for entry in (str(ROOT), str(ROOT / "src")):
        if entry not in sys.path:
            sys.path.insert(0, entry)

_SECTIONS = {
    "._icc": "Agreement: intraclass correlation (irr::icc, psych::ICC)",
    "._fleiss": "Agreement: Fleiss' kappa (irr::kappam.fleiss)",
    "._krippendorff": "Agreement: Krippendorff's alpha (irr::kripp.alpha)",
    "._cac": "Agreement: irrCAC's coefficients (percent agreement, AC1/AC2, Brennan-Prediger, Conger)",
    "._alpha": "Reliability: Cronbach's alpha (psych::alpha)",
    "._stability": "Prediction stability: phi and psi (APS)",
    "._repeated": "Prediction matrices from estimators",
    "._twopl": "Number of learners: the 2PL curve (optRF)",
    "._pool": "Number of learners: tree pool",
    "._closed_form": "Number of learners: closed forms of a tree pool",
    "._tune": "Number of learners: tuning (optRF::opt_prediction)",
    "._importance": "Variable-importance and selection stability (optRF::opt_importance)",
    "._scorer": "scikit-learn integration",
    "._io": "Reading files (CSV, Parquet)",
    "._cohen": "Agreement: Cohen's and Light's kappa (irr::kappa2, irr::kappam.light, irr::N.cohen.kappa)",
    "._irr": "Agreement: irr's other statistics (agree, Kendall's W, Finn, Robinson's A, iota, ...)",
}

_SUBMODULE_SECTIONS = {"compare": "Comparing models", "plotting": "Plots"}


def _exists(page, docs_dir):
    return (Path(docs_dir) / page).is_file()


def _title_of(path):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ").replace("_", " ").capitalize()


def _listed_pages(items):
    """Every page path the nav names (at any depth)."""
    for item in items:
        if isinstance(item, str):
            yield item
            continue
        (_, value), = item.items()
        if isinstance(value, list):
            yield from _listed_pages(value)
        else:
            yield str(value)


def _filter_nav(items, docs_dir, listed=None):
    listed = set(_listed_pages(items)) if listed is None else listed
    out = []
    for item in items:
        if isinstance(item, str):
            if _exists(item, docs_dir):
                out.append(item)
            continue
        (title, value), = item.items()
        if title == "Benchmarks":
            pages = [p for p in sorted((Path(docs_dir) / "benchmarks").glob("*.md"))
                     if f"benchmarks/{p.name}" not in listed]
            if pages:
                out.append({title: [{_title_of(p).replace("`", ""): f"benchmarks/{p.name}"}
                                    for p in pages]})
            continue
        if isinstance(value, list):
            kept = _filter_nav(value, docs_dir, listed)
            if kept:
                out.append({title: kept})
        elif str(value).startswith(("http://", "https://")) or _exists(value, docs_dir):
            out.append({title: value})
    return out


def on_config(config, **kwargs):
    config["nav"] = _filter_nav(config["nav"], config["docs_dir"])
    return config


def _setup_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- setup:start -->\s*(.*?)\s*<!-- setup:end -->", text, flags=re.S)
    if match is None:
        raise RuntimeError("README.md has no <!-- setup:start --> ... <!-- setup:end --> block")
    return match.group(1)


def _validation_report():
    from validation._table import markdown
    from validation.run import available_suites, run_suite

    names = available_suites()
    rows = [row for name in names for row in run_suite(name)]
    failed = sum(not r.passed for r in rows)
    summary = (f"**{len(rows) - failed} of {len(rows)} checks pass** in {len(names)} suites "
               f"({', '.join(names) or 'none yet'}).\n\n")
    return summary + markdown(rows)


def _api_reference():
    import predstab

    by_module = {}
    for name, module in predstab._EXPORTS.items():
        try:
            mod = importlib.import_module(module, "predstab")
        except ImportError:
            continue
        if hasattr(mod, name):
            by_module.setdefault(module, []).append(name)
    untitled = sorted(set(by_module) - set(_SECTIONS))
    if untitled:  # a heading must say what the section holds, not name a private module
        raise RuntimeError(f"docs/_hooks.py: _SECTIONS has no heading for the module(s) {untitled}")
    parts = []
    for module, names in by_module.items():
        parts.append(f"## {_SECTIONS[module]}\n")
        parts.extend(f"::: predstab.{module.lstrip('.')}.{name}\n" for name in names)
    for sub in predstab._SUBMODULES:
        if sub == "cli":
            continue
        try:
            importlib.import_module(f"predstab.{sub}")
        except ImportError:
            continue
        parts.append(f"## {_SUBMODULE_SECTIONS.get(sub, sub)}: predstab.{sub}\n\n"
                     f"::: predstab.{sub}\n    options:\n      show_root_heading: false\n")
    parts.append("## Warnings and small types\n\n::: predstab._exceptions\n    options:\n"
                 "      show_root_heading: false\n\n::: predstab._utils.ConfidenceInterval\n")
    return "\n".join(parts)


def _cli_help():
    from predstab.cli import build_parser

    parser = build_parser()
    out = ["```text\n$ predstab --help\n" + parser.format_help() + "```\n"]
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        out.append(f"## `predstab {name}`\n\n```text\n$ predstab {name} --help\n{p.format_help()}```\n")
    return "\n".join(out)


_FILLERS = {
    "setup": _setup_commands,
    "validation": _validation_report,
    "api": _api_reference,
    "cli": _cli_help,
}


def on_page_markdown(markdown, page, config, files, **kwargs):
    _importable()

    def fill(match):
        with contextlib.redirect_stdout(io.StringIO()):
            return _FILLERS[match.group(1)]()

    return re.sub(r"<!-- predstab:(\w+) -->", fill, markdown)


# --------------------------------------------------------------------------- math in docstrings
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ ]*)\.\. math::[ ]*(?P<inline>.*)$")


def _indent_of(line):
    return len(line) - len(line.lstrip(" "))


def rest_math_to_arithmatex(text):
    """``text`` with reST math written for pymdownx.arithmatex (generic mode).

    ``:math:`x``` becomes ``\\(x\\)``; a ``.. math::`` directive (its formula on the same line
    or in the indented lines below it) becomes a ``$$`` block at the directive's indentation,
    blank lines around it so that Markdown keeps it a block of its own.
    """
    # a role may wrap onto the next line of the docstring
    lines = _MATH_ROLE.sub(lambda m: f"\\({m.group(1)}\\)", text).split("\n")
    out = []
    i = 0
    while i < len(lines):
        match = _MATH_DIRECTIVE.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group("indent")
        body = [match.group("inline").strip()] if match.group("inline").strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > len(indent)):
            if lines[i].strip():  # a blank line would end the formula in TeX and in Markdown
                body.append(lines[i].strip())
            i += 1
        out.extend(["", f"{indent}$$", *(f"{indent}{b}" for b in body), f"{indent}$$", ""])
    return "\n".join(out)


try:
    from griffe import Extension
except ImportError:  # only mkdocstrings needs the extension; the hooks above work without griffe
    Extension = object


class NumpydocMath(Extension):
    """Griffe extension: every docstring's reST math as arithmatex input (see the module text)."""

    def on_instance(self, *, obj, **kwargs):
        if obj.docstring is not None:
            obj.docstring.value = rest_math_to_arithmatex(obj.docstring.value)
