"""Shared fixtures of the stability tests (phi, psi, the measure registry, importance stability).

The APS reference cases and the independent computations the phi / psi files share are plain
names in ``_phi_psi.py`` (they parametrize tests, which fixtures cannot)."""
