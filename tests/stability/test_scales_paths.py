"""How each input type reaches phi / psi: the reading paths of stability/_scales.py, pinned to values."""
