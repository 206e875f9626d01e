"""mkdocs hooks: the generated parts of the documentation site.

Placeholders in the pages are replaced at build time, so the site never drifts from the code:

- ``<!-- predstab:setup -->``      the two set-up commands, read from README.md;
- ``<!-- predstab:validation -->`` the parity table of ``python -m validation --markdown``;
- ``<!-- predstab:api -->``        a mkdocstrings block for every public name that exists;
- ``<!-- predstab:cli -->``        ``--help`` of every ``predstab`` command;
- ``<!-- predstab:changelog -->``  CHANGELOG.md (every rename of the public API and the CLI).

Docstrings written with shared pieces (``predstab._core._docstrings.fill_doc``) reach the site
filled in: :class:`NumpydocMath` takes those from the objects at run time.

Every tutorial (``docs/tutorials/*.md``) is run block by block with docs/_blocks.py, the runner
tests/test_docs.py uses, and what each block printed and drew is shown right after it: the
output as a text block, the figures as images (``tutorials/_output/<page>-<k>.png``, files of
the built site only). A failing block fails the build.

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
    ".agreement._icc": "Agreement: intraclass correlation (irr::icc, psych::ICC)",
    ".agreement._icc_reml": "Agreement: ICC of incomplete designs (psych::ICC(lmer = TRUE))",
    "._core._long": "Long-format ratings to a matrix",
    ".agreement._fleiss": "Agreement: Fleiss' kappa (irr::kappam.fleiss, irrCAC::fleiss.kappa.raw)",
    ".agreement._krippendorff": ("Agreement: Krippendorff's alpha (irr::kripp.alpha, "
                                 "irrCAC::krippen.alpha.raw)"),
    ".agreement._cohen": ("Agreement: Cohen's and Light's kappa (irr::kappa2, psych::cohen.kappa, "
                          "irr::kappam.light)"),
    ".agreement._cac": ("Agreement: irrCAC's chance-corrected coefficients (AC1/AC2, Brennan-Prediger, "
                        "Conger)"),
    ".agreement._percent": "Agreement: percent agreement (irr::agree, irrCAC::pa.coeff.raw, irr::maxwell)",
    ".agreement._concordance": ("Agreement: concordance and mean correlations (irr::kendall, irr::meancor, "
                                "irr::meanrho)"),
    ".agreement._variance_ratio": "Agreement: variance ratios (irr::finn, irr::robinson, irr::iota)",
    ".agreement._marginal": ("Agreement: two raters' table, rater bias and marginal homogeneity "
                             "(irr::rater.bias, irr::stuart.maxwell.mh, irr::bhapkar)"),
    ".agreement._inter_intra": "Agreement: inter- and intrarater reliability (irr::relInterIntra)",
    ".agreement._kappa_sample_size": ("Agreement: sample size for kappa (irr::N.cohen.kappa, "
                                      "irr::N2.cohen.kappa)"),
    ".agreement._alpha": "Reliability: Cronbach's alpha (psych::alpha)",
    ".stability._stability": "Prediction stability: phi and psi (APS)",
    ".stability._result": "Prediction stability: the result of phi and psi",
    ".ensembles._repeated": "Prediction matrices from estimators",
    ".ensembles._twopl": "Number of learners: the 2PL curve (optRF)",
    ".ensembles._pool": "Number of learners: tree pool",
    ".ensembles._closed_form_result": "Number of learners: closed forms of a tree pool",
    ".ensembles._distributed": "Number of learners: a tree pool on a Dask cluster",
    ".ensembles._tune": "Number of learners: tuning (optRF::opt_prediction)",
    ".ensembles._tune_result": "Number of learners: the tuning's result and recommendations",
    ".stability._importance": "Variable-importance and selection stability (optRF::opt_importance)",
    "._scorer": "scikit-learn integration",
    "._core._reading": "Reading files (CSV, Parquet)",
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


# --------------------------------------------------------------------------- tutorials' output
_OUTPUTS = {}  # src_uri of a tutorial -> the Runs of its blocks (docs/_blocks.py)
_OUTPUT_DIR = "tutorials/_output"


def _runner():
    import importlib.util

    name = "predstab_docs_blocks"
    if name not in sys.modules:  # once per build (its dataclasses need the module registered)
        spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_blocks.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _figure_uri(src_uri, k):
    return f"{_OUTPUT_DIR}/{Path(src_uri).stem}-{k}.png"


def run_tutorials(docs_dir, pages):
    """``{src_uri: Runs}`` of the tutorial pages (src_uris under docs_dir), each run in a fresh
    temporary folder with figures captured."""
    import tempfile

    _importable()
    runner = _runner()
    out = {}
    for src_uri in pages:
        text = (Path(docs_dir) / src_uri).read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as folder:
            out[src_uri] = runner.run_page(text, f"docs/{src_uri}", folder, figures=True)
    return out


def with_outputs(markdown, runs, src_uri):
    """``markdown`` with each run block followed by what it printed and the images it made."""
    parts, done, figure = [], 0, 0
    # the blocks where they are in this text (mkdocs strips a page's front matter)
    here = _runner().blocks(markdown)
    if [b.code for b in here] != [r.block.code for r in runs]:
        raise RuntimeError(f"docs/{src_uri}: its blocks changed after they were run")
    for run, block in zip(runs, here, strict=True):
        if not run.ran or not (run.stdout.strip() or run.figures):
            continue
        pad = block.indent
        parts.append(markdown[done:block.end])
        done = block.end
        shown = [f"\n\n{pad}*Output (generated when this page was built):*"]
        if run.stdout.strip():
            body = "\n".join(f"{pad}{line}".rstrip() for line in run.stdout.rstrip().split("\n"))
            shown.append(f"\n\n{pad}```text\n{body}\n{pad}```")
        for _ in run.figures:
            figure += 1
            target = Path(_figure_uri(src_uri, figure)).relative_to(Path(src_uri).parent)
            shown.append(f"\n\n{pad}![Figure {figure} of this page, drawn by the code above]"
                         f"({target.as_posix()})")
        parts.append("".join(shown))
    parts.append(markdown[done:])
    return "".join(parts)


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    pages = sorted(f.src_uri for f in files.documentation_pages()
                   if f.src_uri.startswith("tutorials/") and f.src_uri.count("/") == 1)
    _OUTPUTS.clear()
    _OUTPUTS.update(run_tutorials(config["docs_dir"], pages))
    for src_uri, runs in _OUTPUTS.items():
        images = [png for run in runs for png in run.figures]
        for k, png in enumerate(images, start=1):
            files.append(File.generated(config, _figure_uri(src_uri, k), content=png))
    return files


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
        if sub not in _SUBMODULE_SECTIONS:  # the CLI has its page; the domain packages' names are above
            continue
        try:
            importlib.import_module(f"predstab.{sub}")
        except ImportError:
            continue
        parts.append(f"## {_SUBMODULE_SECTIONS.get(sub, sub)}: predstab.{sub}\n\n"
                     f"::: predstab.{sub}\n    options:\n      show_root_heading: false\n")
    parts.append("## Warnings and small types\n\n::: predstab._core._exceptions\n    options:\n"
                 "      show_root_heading: false\n\n::: predstab._core._utils.ConfidenceInterval\n")
    return "\n".join(parts)


def _cli_help():
    from predstab.cli import build_parser

    parser = build_parser()
    out = ["```text\n$ predstab --help\n" + parser.format_help() + "```\n"]
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        out.append(f"## `predstab {name}`\n\n```text\n$ predstab {name} --help\n{p.format_help()}```\n")
    return "\n".join(out)


def _changelog():
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


_FILLERS = {
    "changelog": _changelog,
    "setup": _setup_commands,
    "validation": _validation_report,
    "api": _api_reference,
    "cli": _cli_help,
}


def on_page_markdown(markdown, page, config, files, **kwargs):
    _importable()
    if page.file.src_uri in _OUTPUTS:
        markdown = with_outputs(markdown, _OUTPUTS[page.file.src_uri], page.file.src_uri)

    def fill(match):
        with contextlib.redirect_stdout(io.StringIO()):
            return _FILLERS[match.group(1)]()

    return code_span_pipes(re.sub(r"<!-- predstab:(\w+) -->", fill, markdown))


# --------------------------------------------------------------------------- pipes in code spans
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def code_span_pipes(markdown):
    """``markdown`` with the ``\\|`` of code spans in table rows written ``|``.

    GitHub needs a pipe in a table cell escaped, code spans included (``\\|``); Python-Markdown
    leaves pipes inside backticks alone and shows the backslash of ``\\|`` in code literally.
    Lines outside tables and fenced blocks are left as they are.
    """
    out, fence = [], None
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None and stripped.startswith("|"):
            line = _CODE_SPAN.sub(lambda m: m.group(1) + m.group(2).replace("\\|", "|") + m.group(1), line)
        out.append(line)
    return "\n".join(out)


# --------------------------------------------------------------------------- the built site's check
# what must never reach a reader: a reST role shown as text, a table row shown as a paragraph of
# pipes, a backslash-escaped pipe shown as written
_RAW_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj|math|ref|py:\w+):(?:`|<code>)")
_RAW_TABLE_ROW = re.compile(r"<p>\s*\|[^<]*\|[^<]*\|\s*</p>")
_ESCAPED_PIPE = re.compile(r"\\\|")


def raw_markup(html):
    """The raw markup left in a built page's ``html``: a list of ``(kind, excerpt)``."""
    html = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    found = []
    for kind, pattern in (("raw role", _RAW_ROLE), ("table row as text", _RAW_TABLE_ROW),
                          ("escaped pipe", _ESCAPED_PIPE)):
        for match in pattern.finditer(html):
            found.append((kind, html[max(0, match.start() - 40):match.end() + 40].replace("\n", " ")))
    return found


def on_post_page(output, page, config, **kwargs):
    """Fail the build on raw markup in a built page (an error, not a warning: ``mkdocs build -q``
    does not count warnings)."""
    from mkdocs.exceptions import PluginError

    found = raw_markup(output)
    if found:
        shown = "; ".join(f"{kind}: ...{excerpt}..." for kind, excerpt in found[:5])
        raise PluginError(f"{page.file.src_uri}: {len(found)} raw markup in the built page: {shown}")
    return output


# --------------------------------------------------------------------------- math in docstrings
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ ]*)\.\. math::[ ]*(?P<inline>.*)$")


def _indent_of(line):
    return len(line) - len(line.lstrip(" "))


def rest_math_to_arithmatex(text):
    """``text`` with reST math written for pymdownx.arithmatex (generic mode).

    ``:math:`x``` becomes ``\\(x\\)``; a ``.. math::`` directive (its formula on the same line
    or in the indented lines below it) becomes a ``$$`` block per equation (blank lines separate
    them, as in Sphinx) at the directive's indentation, blank lines around it so that Markdown
    keeps it a block of its own.
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
        # blank lines separate the directive's equations (as Sphinx shows them): one $$ block each
        equations = [[match.group("inline").strip()]] if match.group("inline").strip() else [[]]
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > len(indent)):
            if lines[i].strip():
                equations[-1].append(lines[i].strip())
            elif equations[-1]:
                equations.append([])
            i += 1
        for body in (e for e in equations if e):
            out.extend(["", f"{indent}$$", *(f"{indent}{b}" for b in body), f"{indent}$$", ""])
    return "\n".join(out)


try:
    from griffe import Extension
except ImportError:  # only mkdocstrings needs the extension; the hooks above work without griffe
    Extension = object


# --------------------------------------------------------------------------- citations in docstrings
_CITATION = re.compile(r"^(?P<indent>[ ]*)\.\. \[(?P<label>[^\]]+)\][ ]+(?P<text>.*)$")


def rest_citations_to_markdown(text):
    """``text`` with numpydoc's reST citations (``.. [1] Author, title ...``, continued on
    indented lines) as a Markdown list, one item per reference (``- [1] Author, title ...``).

    Left as they are, Markdown shows the ``.. [1]`` markers literally and runs every reference
    of a References section into one paragraph.
    """
    out = []
    for line in text.split("\n"):
        match = _CITATION.match(line)
        if match is None:
            out.append(line)
        else:
            indent = match.group("indent")
            out.append(f"{indent}- \\[{match.group('label')}\\] {match.group('text')}")
    return "\n".join(out)


# --------------------------------------------------------------------------- shared docstring pieces
_PIECE = re.compile(r"^[ \t]*%\(\w+\)s[ \t]*$", re.M)


def runtime_docstring(path):
    """The docstring of the object at ``path`` (``predstab.agreement._cac.gwet_ac1``) as Python
    has it at run time, cleaned as griffe cleans docstrings; None when it cannot be imported.

    Griffe reads docstrings from the source, where the pieces that
    ``predstab._core._docstrings.fill_doc`` fills in at import are still ``%(name)s`` lines.
    """
    import inspect

    _importable()
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return None
        doc = getattr(obj, "__doc__", None)
        return inspect.cleandoc(doc) if doc else None
    return None


# --------------------------------------------------------------------------- cross-references
_ROLE = re.compile(r":(?P<kind>func|class|meth|mod|attr|data|exc|obj):`(?P<target>[^`]+)`")


def _canonical(target, scope):
    """The path under which mkdocstrings renders what ``target`` names (a Python object's
    module and qualified name), tried as a full path, under ``predstab`` and in ``scope`` (the
    docstring's object, its parents); ``target`` itself when nothing imports."""
    import inspect

    _importable()
    name = target.lstrip(".")
    parts = scope.split(".")
    tries = [name, f"predstab.{name}", *(".".join(parts[:k] + [name]) for k in range(len(parts), 0, -1))]
    for path in tries:
        bits = path.split(".")
        for cut in range(len(bits), 0, -1):
            try:
                obj = importlib.import_module(".".join(bits[:cut]))
            except ImportError:
                continue
            owner, last = obj, None
            try:
                for bit in bits[cut:]:
                    owner, obj, last = obj, getattr(obj, bit), bit
            except AttributeError:
                if bit == bits[-1] and bit in getattr(obj, "__dataclass_fields__", {}):  # a result's field
                    return f"{obj.__module__}.{obj.__qualname__}.{bit}"
                break
            if inspect.ismodule(obj):
                return obj.__name__
            module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            if module and qualname and (inspect.isclass(obj) or inspect.isroutine(obj)) \
                    and "<locals>" not in qualname:
                return f"{module}.{qualname}"
            if last is not None and inspect.isclass(owner):  # an attribute or property of a class
                return f"{owner.__module__}.{owner.__qualname__}.{last}"
            if last is not None and inspect.ismodule(owner):  # a module's data
                return f"{owner.__name__}.{last}"
            break
    return name


def rest_roles_to_links(text, scope=""):
    """``text`` with reST cross-reference roles (``:func:`~predstab.icc```, ``:class:``,
    ``:meth:``, ``:mod:``, ``:attr:``, ``:data:``) as mkdocs-autorefs references: a link to the
    object's entry in the API reference, or, for a name the site does not render (a private
    helper, another package), the name in code -- never the role as text."""
    import html

    def link(match):
        target = match.group("target").strip()
        explicit = re.fullmatch(r"(?P<title>.*?)\s*<(?P<target>[^<>]+)>", target)  # `title <target>`
        if explicit:
            title, target = explicit.group("title"), explicit.group("target").strip()
        else:
            title = target.lstrip("~").lstrip(".")
            if target.startswith("~"):
                title = title.rsplit(".", 1)[-1]
            if match.group("kind") in ("func", "meth"):
                title += "()"
        identifier = html.escape(_canonical(target.lstrip("~"), scope), quote=True)
        return f'<autoref identifier="{identifier}" optional><code>{html.escape(title)}</code></autoref>'

    return _ROLE.sub(link, text)


class NumpydocMath(Extension):
    """Griffe extension: every docstring's shared pieces filled in (the run-time docstring of an
    object whose source still shows ``%(name)s`` lines), its reST math as arithmatex input and its
    reST citations as a Markdown list (see the module text)."""

    def on_instance(self, *, obj, **kwargs):
        if obj.docstring is not None:
            value = obj.docstring.value
            if _PIECE.search(value):
                value = runtime_docstring(obj.path) or value
            value = rest_citations_to_markdown(rest_math_to_arithmatex(value))
            obj.docstring.value = rest_roles_to_links(value, obj.path)
