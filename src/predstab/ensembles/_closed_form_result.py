"""The result of a tree pool's closed-form stability curve with its band (:class:`ClosedFormResult`).

Computed by :func:`predstab.ensembles._closed_form.closed_form_bands`; kept apart from the
pure functions there.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from .._core._results import Result, r_block, r_signif, result
from .._core._utils import ConfidenceInterval
from ..stability._registry import MEASURES

__all__ = ["ClosedFormResult", "BAND_COVERS", "BAND_LABEL", "floored_icc_text", "in_members"]

# what the bootstrap-over-learners bands cover (printed with them: the table, the print, the plot)
BAND_COVERS = "learners only: these test objects and this training set, variation from the learners"
BAND_LABEL = "learners only"


@result
class ClosedFormResult(Result):
    """A closed-form stability curve of a tree pool with its bootstrap band.

    Returned by :meth:`TreePool.closed_form <predstab.TreePool.closed_form>`.

    Attributes
    ----------
    measure : str
        A measure with a closed form (``predstab.stability.measure_names("closed_form")``):
        "icc", "fleiss", "phi" or "psi".
    n_learners : ndarray of shape (n_sizes,)
        Forest sizes.
    curve : ndarray of shape (n_sizes,)
        The closed-form estimate at each size.
    confidence_interval : ConfidenceInterval
        ``(low, high)``, arrays of shape (n_sizes,): the percentile bootstrap band at
        ``confidence_level`` of the resampled curves ``curve + errors`` (the pool's learners
        resampled; containing ``curve``, capped at 1, and ICC(1)'s at 0 from below). NaN without
        bootstrap. What it covers
        (``covers``): **learners only** -- the expected stability of forests of ``n`` learners
        on these test objects, grown on this training set, the only randomness being the
        trees'; not the sampling of test objects or of training sets.
    errors : ndarray of shape (n_resamples, n_sizes) or None
        Bootstrap errors. Metric predictions: closed forms of resampled pools minus the exact
        value of the same estimator in the bootstrap world (the pool as population). Classes:
        the exact value in each resampled pool's own bootstrap world (its vote shares as the
        population) minus the pool's. ``curve + errors`` are
        the resampled curves (the bootstrap behind the bands and behind
        :func:`predstab.tune_num_learners`' learners-only recommendation interval).
    n_resamples : int
        Bootstrap resamples of the learners (0: no band).
    confidence_level : float
    pool_size : int
        Learners in the pool.
    voting : str or None
        "soft" / "hard" for class measures, None for metric ones.
    single_icc : float
        ``measure="icc"``: ICC(1) of one learner, :math:`B / (B + W)`, with the between-object
        variance estimate :math:`B` *not* floored at 0 (the pool's Notes); for a pool whose
        learners all predicted every object it is ``irr::icc(model = "oneway", unit = "single")``
        (:func:`predstab.icc`) of the objects x learners matrix. Negative when the objects'
        mean predictions differ less than the learners' own noise predicts: then :math:`B` is
        floored at 0 and ``curve`` is 0 at every ``n`` (the print says so). NaN for the other
        measures.
    unit : str
        What the pool's members are called: "learners" (trees of a fitted forest, any fitted
        ensemble's estimators) or "members" (a pool built from given predictions, e.g. networks
        of a deep ensemble); the print and ``covers`` use it.
    """

    measure: str
    n_learners: np.ndarray
    curve: np.ndarray
    confidence_interval: ConfidenceInterval = dataclasses.field(repr=False)
    errors: np.ndarray | None
    n_resamples: int
    confidence_level: float
    pool_size: int
    voting: str | None = None
    single_icc: float = float("nan")
    unit: str = "learners"

    _renamed_attributes = {"n_bootstrap": "n_resamples"}

    _title = "Closed-form stability of ensembles drawn from a pool of learners"

    @property
    def covers(self) -> str:
        """What the band covers: the learners (members) only (see ``confidence_interval``)."""
        return BAND_COVERS.replace("learners", self.unit)

    @property
    def low(self):
        return self.confidence_interval.low

    @property
    def high(self):
        return self.confidence_interval.high

    def _str_lines(self):
        pct = f"{100 * self.confidence_level:g}%"
        unit, label = self.unit, BAND_LABEL.replace("learners", self.unit)
        rows = [("measure", MEASURES[self.measure].title), ("pool", f"{self.pool_size} {unit}")]
        if self.voting is not None:
            rows.append(("voting", self.voting))
        if self.n_resamples:
            rows.append(("band", f"{pct} percentile bootstrap over {unit}, {self.n_resamples} resamples"))
            rows.append(("covers", self.covers))
        if self.single_icc < 0:
            rows.append(("floored", floored_icc_text(self.single_icc)))
        lines = r_block(self._title.replace("learners", unit), rows)
        band = f"   {pct} band ({label})" if self.n_resamples else ""
        lines += ["", f"  {'n_' + unit:>10}    value" + band]
        for n, v, lo, hi in zip(self.n_learners, self.curve, self.low, self.high, strict=True):
            band = f"   {r_signif(lo)} to {r_signif(hi)}" if self.n_resamples else ""
            lines.append(f"  {r_signif(n, 6):>10}   {r_signif(v):>6}{band}")
        return lines

    def to_frame(self) -> pd.DataFrame:
        """One row per forest size: ``n_learners``, ``value``, ``ci_low``, ``ci_high`` and
        ``ci_covers`` ("learners only", see ``covers``).

        A curve has one value per forest size, so unlike single-value results this is a
        table (the scalar fields are the same on every row).
        """
        return pd.DataFrame({"measure": self.measure, "n_learners": self.n_learners, "value": self.curve,
                             "ci_low": self.low, "ci_high": self.high, "pool_size": self.pool_size,
                             "ci_covers": (BAND_LABEL.replace("learners", self.unit)
                                           if self.n_resamples else "")})


def in_members(res, pool):
    """``res`` told in members where ``pool`` is one of members (:meth:`TreePool.from_predictions`,
    :meth:`TreePool.from_fit_predict`: no fitted estimator), else unchanged."""
    return dataclasses.replace(res, unit="members") if pool.estimator is None else res


def floored_icc_text(single_icc):
    """What a floored ICC(1) curve means, with the unfloored value of one learner (the print of
    :class:`ClosedFormResult` and the notes of :func:`predstab.tune_num_learners`)."""
    return (f"the between-object variance estimate is below 0 (ICC(1) of one learner {single_icc:.4f} "
            "without the floor, irr::icc's oneway single value of the objects x learners matrix): the "
            "objects' mean predictions differ less than the learners' own noise predicts; it is "
            "floored at 0, so ICC(1) is 0 at every number of learners")


# --------------------------------------------------------------------------- expected D_e
