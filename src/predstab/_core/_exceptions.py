"""Warning classes shared by every predstab measure, and where their warnings point."""

import contextlib
import os
import sys
import warnings

__all__ = [
    "PredstabWarning",
    "PredstabUndefinedWarning",
    "PredstabDegenerateWarning",
    "PredstabDataWarning",
    "PredstabOrientationWarning",
]


class PredstabWarning(UserWarning):
    """Base class of every warning predstab emits."""


class PredstabUndefinedWarning(PredstabWarning, RuntimeWarning):
    """A statistic is mathematically undefined for the data; a fallback (NaN) is returned.

    Raised, for instance, when the expected disagreement is zero but the observed
    disagreement is not (APS: "Expected instability is zero but observed is not").
    """


class PredstabDegenerateWarning(PredstabWarning):
    """The data are degenerate but the statistic has a conventional value.

    The usual case: observed and expected disagreement are both zero, so the
    stability is set to 1 (APS's convention); the model may have collapsed to a
    single value.
    """


class PredstabDataWarning(PredstabWarning):
    """Something about the input deserves attention: missing values were dropped,
    objects were excluded, or there are few replicates."""


class PredstabOrientationWarning(PredstabDataWarning):
    """A matrix looks transposed: replicates (members, refits, raters) in rows and objects in
    columns (``np.stack([m.predict(X) for m in members])``). Filter this category to say that
    an orientation is intended:
    ``warnings.filterwarnings("ignore", category=predstab.PredstabOrientationWarning)``."""


# ----------------------------------------------------------------------------- where warnings point
# the package root (this module lives in predstab/_core/)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _prefixes(also_skip):
    """Path prefixes of predstab, of :mod:`contextlib` (whose ``__exit__`` runs
    :func:`warnings_outside`) and of the packages (modules) in ``also_skip``."""
    out = [_PACKAGE, contextlib.__file__]
    for module in also_skip:
        out.append(os.path.dirname(os.path.abspath(module.__file__)) + os.sep)
    return tuple(out)


def outside_stacklevel(*, also_skip=()) -> int:
    """The ``stacklevel`` that makes a :func:`warnings.warn` in the *caller* of this function
    point at the first frame outside predstab (and the packages in ``also_skip``): the user's
    line, however deep inside predstab the warning is raised. Counting by hand breaks whenever
    a call path gains a frame (a wrapper, a method calling a function); this never does."""
    prefixes = _prefixes(also_skip)
    frame, level = sys._getframe(1), 1  # level 1: the frame calling warnings.warn
    while frame is not None and frame.f_code.co_filename.startswith(prefixes):
        frame, level = frame.f_back, level + 1
    return level


def warn_outside(message, category=UserWarning, *, also_skip=()):
    """:func:`warnings.warn` pointing at the first frame outside predstab (and ``also_skip``):
    ``skip_file_prefixes`` on Python >= 3.12, a walk up the frames before."""
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=_prefixes(also_skip))
    else:
        warnings.warn(message, category, stacklevel=outside_stacklevel(also_skip=also_skip))


@contextlib.contextmanager
def warnings_outside(*, also_skip=()):
    """Re-issue the warnings raised in the block at the first frame outside predstab (and
    ``also_skip``), for a public method or callback that calls a public function whose own
    ``stacklevel`` points at its direct caller (inside predstab). The filters are those in force
    when the warnings are re-issued (an "error" filter raises then, after the block)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        warn_outside(w.message, w.category, also_skip=also_skip)
