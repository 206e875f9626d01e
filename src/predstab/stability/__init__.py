"""Prediction stability over an (objects x refits) matrix: APS's data-based phi and
model-based psi (categorical, ordinal, metric; one object or many), with APS's own names
``calculate_phi`` / ``calculate_psi``, and optRF's selection and variable-importance stability.
Every name is also available from :mod:`predstab` itself.
"""

from ._importance import (
    ImportanceStabilityResult,
    SelectionStabilityResult,
    importance_stability,
    selection_stability,
)
from ._stability import StabilityResult, calculate_phi, calculate_psi, phi, psi

__all__ = ["ImportanceStabilityResult", "SelectionStabilityResult", "StabilityResult", "calculate_phi",
           "calculate_psi", "importance_stability", "phi", "psi", "selection_stability"]
