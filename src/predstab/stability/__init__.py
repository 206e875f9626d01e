"""Prediction stability over an (objects x refits) matrix: APS's data-based phi and
model-based psi (categorical, ordinal, metric; one object or many), with APS's own names
``calculate_phi`` / ``calculate_psi``, and optRF's selection and variable-importance stability.
:data:`MEASURES` is the one registry of the measures predstab takes by name (the tuning, the
scorer, the tree pool's closed forms and the command line read it; :func:`measure_names`).
Every function is also available from :mod:`predstab` itself.

Names are imported on first use, as :mod:`predstab` does: reading the registry's names
(``predstab agree``'s choices) loads no measure.
"""

import importlib

# public name -> private module that defines it
_EXPORTS = {
    "ImportanceStabilityResult": "._importance",
    "SelectionStabilityResult": "._importance",
    "importance_stability": "._importance",
    "selection_stability": "._importance",
    "MEASURES": "._registry",
    "StabilityMeasure": "._registry",
    "measure_names": "._registry",
    "StabilityResult": "._result",
    "calculate_phi": "._stability",
    "calculate_psi": "._stability",
    "phi": "._stability",
    "psi": "._stability",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'predstab.stability' has no attribute {name!r}")


def __dir__():
    return __all__
