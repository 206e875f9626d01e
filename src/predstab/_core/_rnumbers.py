"""Numbers as R prints them with ``signif`` (shared by the R-style text blocks and the HTML renderer)."""

from __future__ import annotations

import math

__all__ = ["r_signif"]


def r_signif(x, digits=4) -> str:
    """A number as R prints it with ``signif(x, digits)`` (NA for NaN/None, Inf for infinity).

    Examples
    --------
    >>> r_signif(0.123456), r_signif(12345.6), r_signif(float("nan")), r_signif(1e-20)
    ('0.1235', '12346', 'NA', '1e-20')
    """
    if x is None:
        return "NA"
    x = float(x)
    if math.isnan(x):
        return "NA"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    if 10 ** digits <= abs(x) < 1e15:
        return str(int(round(x)))  # R never drops integer digits
    text = f"{x:.{digits}g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}e{'-' if exp.startswith('-') else ''}{int(exp.lstrip('+-')):02d}"
        # R drops a leading + and keeps two exponent digits
    return text
