"""One HTML renderer for every result, read from its fields (Jupyter's ``_repr_html_``, report.html).

:func:`render` lays any predstab result out as HTML from what it holds, never from per-class
HTML: a captioned table of its numbers (estimate, lower and upper bound of its interval in
aligned columns), side-by-side columns for its short per-item arrays, bounded summaries of long
ones, its tables (pandas frames, head and tail only), its notes and warnings, its figure (a
PNG embedded as base64, for results that draw one over many objects), and its R-style text
block (``str(result)``) verbatim. Every label is escaped (:func:`html.escape`); nothing refers
to a resource outside the page. :func:`page` wraps sections into one self-contained page (the
CLI's report.html, :func:`predstab._core._writing.write_report`).

:class:`HtmlDisplay` is the hook: every result (:class:`~predstab._core._results.Result`) and
:class:`~predstab.TreePool` derive from it, so Jupyter shows them as HTML while ``str`` and
``repr`` stay as they are.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import io
import numbers

import numpy as np
import pandas as pd

from ._rnumbers import r_signif
from ._utils import ConfidenceInterval

__all__ = ["HtmlDisplay", "render", "page", "escape", "png_data_uri", "R_FUNCTIONS", "CSS"]

# the R function (or peer) each result reproduces, named in its caption; "{field}" is read
# from the result (AgreementCoefficientResult says which of irrCAC's functions)
R_FUNCTIONS = {
    "ICCResult": "irr::icc", "ICCRemlResult": "psych::ICC (lme4's REML variance components)",
    "FleissKappaResult": "irr::kappam.fleiss (irrCAC::fleiss.kappa.raw with weights)",
    "KrippendorffAlphaResult": "irr::kripp.alpha (irrCAC::krippen.alpha.raw with weights)",
    "AgreementCoefficientResult": "irrCAC's *.raw coefficients ({coefficient})",
    "CohenKappaResult": "irr::kappa2 and psych::cohen.kappa", "LightKappaResult": "irr::kappam.light",
    "AgreeResult": "irr::agree", "KendallWResult": "irr::kendall", "FinnResult": "irr::finn",
    "RobinsonAResult": "irr::robinson", "MeanCorrelationResult": "irr::meancor / irr::meanrho",
    "MaxwellREResult": "irr::maxwell", "RaterBiasResult": "irr::rater.bias",
    "StuartMaxwellResult": "irr::stuart.maxwell.mh", "BhapkarResult": "irr::bhapkar",
    "FleissLevinPaikResult": "contingencytables::FleissLevinPaik_test_paired_cxc",
    "FriedmanPosthocResult": "PMCMRplus's Friedman post-hoc tests (scikit-posthocs' posthoc_*)",
    "IotaResult": "irr::iota", "InterIntraReliabilityResult": "irr::relInterIntra",
    "KappaSampleSizeResult": "irr::N.cohen.kappa / irr::N2.cohen.kappa",
    "CronbachAlphaResult": "psych::alpha",
    "StabilityResult": "APS::calculate_phi / APS::calculate_psi",
    "SelectionStabilityResult": "optRF's selection stability", "ImportanceStabilityResult":
    "optRF's variable importance stability", "RepeatedPredictions": "APS's repeated refits",
    "TwoPL": "optRF's 2PL fit (minpack.lm::nlsLM)", "TuningResult": "optRF::opt_prediction",
    "Recommendation": "optRF::opt_prediction's recommended number of trees",
    "ClosedFormResult": "no R function (predstab's closed form of optRF's curve)",
    "TreePool": "no R function (ranger's forest, grown once, split into forests)",
    "McNemarResult": "stats::mcnemar.test", "TestResult": "stats::t.test (or the test in its method)",
    "WilcoxonResult": "stats::wilcox.test", "PairedBootstrapResult": "boot::boot (paired)",
    "BootstrapResult": "boot::boot.ci", "FriedmanNemenyiResult": "stats::friedman.test, scmamp::plotCD",
    "BonferroniDunnResult": "scmamp's Bonferroni-Dunn test", "WinRateResult": "stats::binom.test",
    "GamesNeeded": "stats::binom.test (power)", "MeanCI": "stats::t.test's conf.int",
    "StratifiedBootstrapResult": "no R function (rliable's stratified bootstrap)",
    "ProbabilityOfImprovement": "no R function (rliable's probability of improvement)",
    "PerformanceProfileResult": "no R function (rliable's performance profile with bands)",
    "VarianceComponents": "stats::aov (variance components)",
}
# what a pool of members' results reproduce (TreePool.from_predictions / from_members /
# from_fit_predict of e.g. networks): no ranger forest, optRF's fit and rule on members
MEMBER_R_FUNCTIONS = {
    "TreePool": "no R function (a pool of members' predictions; no ranger forest)",
    "TuningResult": "optRF::opt_prediction's 2PL fit and rule, applied to a pool of members",
    "Recommendation": "optRF::opt_prediction's rule, applied to a pool of members",
}
# options of a result's own plot() in a display: beyond a few hundred objects, one bar per
# object takes minutes to draw and reads as a block; a histogram of them is the figure
MANY_OBJECTS = 500
PLOT_OPTIONS = {"StabilityResult": lambda res: {"kind": "hist"} if res.n_objects > MANY_OBJECTS else {}}
WARNING_FIELDS = ("notes", "note", "warnings")  # text a result holds about what went wrong
SHORT = 50  # per-item arrays up to this length are shown in full, side by side
HEAD, TAIL = 15, 5  # rows of a long frame shown
BIG = 10**6  # arrays with more elements: shape only (no pass over them)

CSS = """
.predstab{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:13px;color:#222;max-width:60em}
.predstab table{border-collapse:collapse;margin:.4em 0 .8em}
.predstab caption{caption-side:top;text-align:left;font-weight:600;padding:.2em 0}
.predstab caption small{font-weight:400;color:#555}
.predstab th,.predstab td{border-bottom:1px solid #ddd;padding:.15em .6em;text-align:left;vertical-align:top}
.predstab td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.predstab th{background:#f3f3f3}
.predstab .warn{background:#fff4e0;border-left:4px solid #e69500;padding:.3em .6em;margin:.4em 0}
.predstab pre{background:#f7f7f7;padding:.5em;overflow-x:auto;font-size:12px;white-space:pre-wrap}
.predstab img{max-width:100%;height:auto}
.predstab .scroll{overflow-x:auto}
.predstab td{max-width:30em}
.predstab p.long{margin:.3em 0 .6em}
"""


def escape(value) -> str:
    """``str(value)`` with ``& < > " '`` escaped (every label a user gave)."""
    return html.escape(str(value), quote=True)


def _number(v) -> str:
    if v is None:
        return "NA"
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return r_signif(v)
    return escape(v)


def _is_num(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, (bool, np.bool_))


def _cell(v) -> str:
    return f'<td class="num">{_number(v)}</td>' if _is_num(v) or v is None else f"<td>{escape(v)}</td>"


def _table(caption, header, rows) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    cap = f"<caption>{caption}</caption>" if caption else ""
    table = f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


# ----------------------------------------------------------------------------- reading fields
def _fields(obj) -> list:
    """``[(name, value)]`` of what the object shows: a dataclass's fields (and derived ones),
    else its public attributes (a TreePool)."""
    if dataclasses.is_dataclass(obj):
        items = [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj)
                 if not f.name.startswith("_")]
        return items + [(n, getattr(obj, n)) for n in getattr(obj, "_derived_fields", ())]
    return [(k, v) for k, v in vars(obj).items() if not k.startswith("_")]


def _scalar(v) -> bool:
    return v is None or isinstance(v, (numbers.Number, str, np.bool_, np.number))


def _sequence(v):
    """A 1-D sequence of scalars as a list, else None."""
    if isinstance(v, (pd.Index, pd.Series)):
        v = v.to_numpy()
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.size <= BIG:
        return v.tolist()
    if isinstance(v, (tuple, list)) and not isinstance(v, ConfidenceInterval) and all(map(_scalar, v)):
        return list(v)
    return None


def _ci_target(name, scalars) -> str | None:
    """The estimate an interval field belongs to: ``x_interval`` / ``x_confidence_interval`` ->
    ``x``; ``confidence_interval`` -> ``value`` / ``estimate`` / the first number."""
    for suffix in ("_confidence_interval", "_interval"):
        if name.endswith(suffix) and name[: -len(suffix)] in scalars:
            return name[: -len(suffix)]
    if name.startswith("ci_"):  # ci_a -> a, or score_a
        return name[3:] if name[3:] in scalars else next(
            (k for k, v in scalars.items() if k.endswith("_" + name[3:]) and _is_num(v)), None)
    prefix = name.removesuffix("_interval").removesuffix("_confidence")
    if prefix != name and name != "confidence_interval":  # unweighted_confidence_interval -> unweighted_kappa
        return next((k for k, v in scalars.items() if k.startswith(prefix + "_") and _is_num(v)), None)
    if name == "confidence_interval":
        for key in ("value", "estimate", "difference", "statistic"):
            if key in scalars:
                return key
        return next((k for k, v in scalars.items() if _is_num(v)), None)
    return None


def _of_members(obj) -> bool:
    """Whether ``obj`` is a pool of members (no estimator) or a tuning result / recommendation of one."""
    if type(obj).__name__ == "TreePool":
        return hasattr(obj, "test_predictions_") and obj.estimator is None
    recs = getattr(obj, "recommendations", None)
    units = ([getattr(r, "unit", None) for r in recs.values()] if isinstance(recs, dict)
             else [getattr(obj, "unit", None)])
    return "members" in units


def _caption(obj) -> str:
    name = type(obj).__name__
    title = getattr(obj, "_title", "") or name
    label = getattr(obj, "coefficient", None) or getattr(obj, "description", None)
    if isinstance(label, str) and label and label not in title:
        title = f"{title}: {label}"
    r = (MEMBER_R_FUNCTIONS if _of_members(obj) else R_FUNCTIONS).get(name, "no R function")
    try:
        r = r.format(**{k: getattr(obj, k) for k in ("coefficient",) if hasattr(obj, k)})
    except (KeyError, IndexError):
        pass
    return f"{escape(title)} <small>({escape(name)}; reproduces {escape(r)})</small>"


def _main_table(obj, items) -> str:
    scalars = {k: v for k, v in items if _scalar(v) and not _long(v)}
    intervals = {k: v for k, v in items if isinstance(v, ConfidenceInterval) and _scalar(v.low)}
    attached = {}
    for name, ci in intervals.items():
        target = _ci_target(name, scalars)
        if target is not None and target not in attached:
            attached[target] = (name, ci)
    level = scalars.get("confidence_level")
    bound = f"{100 * level:g}% " if _is_num(level) and level == level else ""
    rows = []
    shown = {name for name, _ in attached.values()}
    for k, v in items:
        if k in scalars:
            ci = attached.get(k)
            rows.append((k, v, *(ci[1] if ci else ("", ""))))
        elif k in intervals and k not in shown:
            rows.append((k, "", intervals[k].low, intervals[k].high))
        elif (seq := _sequence(v)) is not None and len(seq) <= 12 and all(isinstance(s, str) for s in seq):
            rows.append((k, ", ".join(map(str, seq)) if seq else "(none)", "", ""))
    header = ("quantity", "estimate", f"{bound}lower", f"{bound}upper")
    if not any(r[2] != "" for r in rows):
        rows, header = [r[:2] for r in rows], header[:2]
    paragraphs = "".join(f'<p class="long"><b>{escape(k)}</b>: {escape(v)}</p>' for k, v in items if _long(v))
    return _table(_caption(obj), header, rows) + paragraphs


def _long(v) -> bool:
    """A sentence (shown as a paragraph below the table, not in a cell)."""
    return isinstance(v, str) and len(v) > 60


def _parallel_tables(items) -> list:
    """Per-item arrays of one length (up to :data:`SHORT`) side by side; the interval bounds of
    an array estimate as two columns."""
    groups = {}
    for k, v in items:
        if isinstance(v, ConfidenceInterval) and not _scalar(v.low):
            low, high = _sequence(np.asarray(v.low)), _sequence(np.asarray(v.high))
            if low is not None and high is not None:
                groups.setdefault(len(low), []).extend([(f"{k} low", low), (f"{k} high", high)])
            continue
        seq = _sequence(v)
        if seq is not None and 2 <= len(seq) <= SHORT:
            groups.setdefault(len(seq), []).append((k, seq))
    out = []
    for n, columns in groups.items():
        if len(columns) < 2:
            continue
        rows = list(zip(*(c for _, c in columns), strict=True))
        out.append(_table(f"per item ({n})", [k for k, _ in columns], rows))
    return out


def _summaries(items, parallel) -> str:
    rows = []
    for k, v in items:
        if k in parallel:
            continue
        if isinstance(v, (pd.Index, pd.Series)):
            v = v.to_numpy()
        if not isinstance(v, np.ndarray) or v.size == 0 or (v.ndim == 2 and v.size <= 400):
            continue
        if v.size > BIG or v.dtype.kind not in "fiub":
            first = "" if v.size > BIG else ", ".join(map(str, v.ravel()[:5].tolist())) + ", ..."
            rows.append((k, " x ".join(map(str, v.shape)), first, "", "", ""))
            continue
        x = v.astype(float).ravel()
        finite = x[~np.isnan(x)]
        stats = (finite.min(), float(np.median(finite)), finite.max()) if finite.size else (None,) * 3
        rows.append((k, " x ".join(map(str, v.shape)), *stats, int(x.size - finite.size)))
    if not rows:
        return ""
    return _table("arrays (summary: not every value)", ("field", "shape", "min", "median", "max", "NA"), rows)


def _matrices(items, categories) -> list:
    out = []
    for k, v in items:
        if isinstance(v, np.ndarray) and v.ndim == 2 and 0 < v.size <= 400:
            labels = categories if categories is not None and len(categories) == v.shape[0] else None
            head = ["", *(labels or range(v.shape[1]))] if labels and len(labels) == v.shape[1] \
                else ["", *range(v.shape[1])]
            rows = [((labels[i] if labels else i), *row) for i, row in enumerate(v.tolist())]
            out.append(_table(escape(k), head, rows))
    return out


def frame_html(frame: pd.DataFrame, caption="") -> str:
    """A pandas frame as a table: every row up to ``HEAD + TAIL + 10``, else its head and tail."""
    sentences = [c for c in frame.columns if frame[c].map(_long).any()]  # notes: below, not in a cell
    notes = "".join(f'<p class="long"><b>{escape(i)}, {escape(c)}</b>: {escape(v)}</p>'
                    for c in sentences for i, v in frame[c].items() if isinstance(v, str) and v)
    frame = frame.drop(columns=sentences)
    n = len(frame)
    index = [" / ".join(map(str, i)) if isinstance(i, tuple) else i for i in frame.index]
    named = not isinstance(frame.index, pd.RangeIndex)
    values = frame.to_numpy(dtype=object).tolist()
    rows = [([index[i]] if named else []) + values[i] for i in range(n)]
    if n > HEAD + TAIL + 10:
        rows = rows[:HEAD] + [["..."] * len(rows[0])] + rows[-TAIL:]
        caption = f"{caption} ({n} rows; the first {HEAD} and the last {TAIL})"
    header = ([""] if named else []) + [str(c) for c in frame.columns]
    return _table(escape(caption), header, rows) + notes


def _nested(items) -> list:
    """Results held by a result (a dict of them: one row each; one alone: its own table)."""
    out = []
    for k, v in items:
        if isinstance(v, dict) and v and all(dataclasses.is_dataclass(x) for x in v.values()):
            fields = [[(n, x) for n, x in _fields(r) if _scalar(x) and not _long(x)] for r in v.values()]
            names = list(dict.fromkeys(n for f in fields for n, _ in f))
            rows = [(key, *(dict(f).get(n, "") for n in names)) for key, f in zip(v, fields, strict=True)]
            sentences = "".join(f'<p class="long"><b>{escape(key)}, {escape(n)}</b>: {escape(x)}</p>'
                                for key, r in v.items() for n, x in _fields(r) if _long(x))
            out.append(_table(escape(k), ["", *names], rows) + sentences)
        elif isinstance(v, dict) and v and all(_scalar(x) or isinstance(x, (list, tuple))
                                               for x in v.values()):
            out.append(_table(escape(k), ("setting", "value"), list(v.items())))
        elif dataclasses.is_dataclass(v) and hasattr(v, "_str_lines"):
            out.append(f"<details><summary>{escape(k)}</summary>{render(v, figure=False)}</details>")
    return out


def _warnings(items) -> str:
    texts = []
    for k, v in items:
        if k in WARNING_FIELDS and v:
            texts += [v] if isinstance(v, str) else [str(x) for x in v]
    return "".join(f'<div class="warn">&#9888; {escape(t)}</div>' for t in texts)


def png_data_uri(data: bytes) -> str:
    """``data:image/png;base64,...`` of PNG bytes (an image inside the page)."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def figure_html(fig, *, dpi=90, alt="figure") -> str:
    """A matplotlib figure as an embedded PNG (``<img src="data:...">``); the figure is closed."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    finally:
        plt.close(fig)
    return f'<img alt="{escape(alt)}" src="{png_data_uri(buffer.getvalue())}">'


def _figure(obj) -> str:
    """The result's own figure (``obj.plot()``), for results over several objects or a curve."""
    plot = getattr(type(obj), "plot", None)
    if plot is None or getattr(obj, "n_objects", 2) < 2 or getattr(obj, "stack_shape", None) is not None:
        return ""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fig = obj.plot(**PLOT_OPTIONS.get(type(obj).__name__, lambda res: {})(obj))
    except Exception as exc:  # a figure that cannot be drawn is said, not raised, in a display
        return f'<div class="warn">the figure could not be drawn: {escape(exc)}</div>'
    return figure_html(fig, alt=f"{type(obj).__name__}.plot()")


def render(obj, *, figure=True, text=True) -> str:
    """The HTML of any predstab result, read from its fields (see the module's docstring).

    Bounded for any size: arrays longer than :data:`SHORT` are summarised, frames show their
    head and tail, and the figure is one PNG.
    """
    items = _fields(obj)
    parallel = set()
    for k, v in items:
        seq = _sequence(v)
        if seq is not None and 2 <= len(seq) <= SHORT:
            parallel.add(k)
    parts = [_main_table(obj, items), *_parallel_tables(items), _summaries(items, parallel),
             *_matrices(items, getattr(obj, "categories", None))]
    parts += [frame_html(v, caption=k) for k, v in items if isinstance(v, pd.DataFrame)]
    parts += _nested(items)
    parts.append(_warnings(items))
    if figure:
        parts.append(_figure(obj))
    if text:
        parts.append(f"<details><summary>R-style print</summary><pre>{escape(str(obj))}</pre></details>")
    return f'<div class="predstab">{"".join(p for p in parts if p)}</div>'


class HtmlDisplay:
    """Rich display in Jupyter: ``_repr_html_`` is :func:`render` of the object's fields."""

    def _repr_html_(self) -> str:
        return f"<style>{CSS}</style>" + render(self)


def page(title, sections) -> str:
    """A self-contained HTML page: ``sections`` are ``(heading, html)`` pairs (inline CSS only)."""
    body = "".join(f"<section><h2>{escape(h)}</h2>{s}</section>" for h, s in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}"
            "body{margin:1.5em auto;max-width:62em;padding:0 1em}"
            "h1{font-size:1.5em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.5em}"
            "</style></head>"
            f"<body class=\"predstab\"><h1>{escape(title)}</h1>{body}</body></html>\n")

