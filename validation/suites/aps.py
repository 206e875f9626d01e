"""Suite ``aps``: APS 1.0.1 ``calculate_phi`` / ``calculate_psi`` on 88 reference records.

The checks live in :mod:`validation.aps` (also runnable alone: ``python -m validation.aps``).
"""

from validation.aps import rows

__all__ = ["rows"]
