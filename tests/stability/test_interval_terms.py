"""The terms of the per-object and overall intervals, each against a computation written out here."""
