"""mkdocs hooks: the generated parts of the documentation site.

Placeholders in the pages are replaced at build time, so the site never drifts from the code:

- ``<!-- predstab:setup -->``      the two set-up commands, read from README.md;
- ``<!-- predstab:validation -->`` the parity table of ``python -m validation --markdown``;
- ``<!-- predstab:api -->``        a mkdocstrings block for every public name that exists;
- ``<!-- predstab:cli -->``        ``--help`` of every ``predstab`` command.

Nav entries whose page does not exist (yet) are dropped, and the Benchmarks section lists
whatever ``docs/benchmarks/*.md`` holds, so pages written by other areas appear when they land.
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
    "._icc_reml": "Agreement: ICC of incomplete designs (psych::ICC(lmer = TRUE))",
    "._long": "Long-format ratings to a matrix",
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
}


def _exists(page, docs_dir):
    return (Path(docs_dir) / page).is_file()


def _title_of(path):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ").replace("_", " ").capitalize()


def _filter_nav(items, docs_dir):
    out = []
    for item in items:
        if isinstance(item, str):
            if _exists(item, docs_dir):
                out.append(item)
            continue
        (title, value), = item.items()
        if title == "Benchmarks":
            pages = sorted((Path(docs_dir) / "benchmarks").glob("*.md"))
            if pages:
                out.append({title: [{_title_of(p): f"benchmarks/{p.name}"} for p in pages]})
            continue
        if isinstance(value, list):
            kept = _filter_nav(value, docs_dir)
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
    parts = []
    for module, names in by_module.items():
        parts.append(f"## {_SECTIONS.get(module, module.lstrip('.'))}\n")
        parts.extend(f"::: predstab.{module.lstrip('.')}.{name}\n" for name in names)
    for sub in predstab._SUBMODULES:
        if sub == "cli":
            continue
        try:
            importlib.import_module(f"predstab.{sub}")
        except ImportError:
            continue
        parts.append(f"## `predstab.{sub}`\n\n::: predstab.{sub}\n    options:\n"
                     "      show_root_heading: false\n")
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
