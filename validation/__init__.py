"""Parity checks of predstab against the R packages it reproduces (see README.md)."""
