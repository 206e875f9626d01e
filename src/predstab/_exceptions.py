"""Warning classes shared by every predstab measure."""

__all__ = [
    "PredstabWarning",
    "PredstabUndefinedWarning",
    "PredstabDegenerateWarning",
    "PredstabDataWarning",
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
