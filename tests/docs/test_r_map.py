"""docs/r-to-python.md names every function that irr, irrCAC and optRF export.

The export lists are read from the R source tarballs in ``../shared/r-peers`` (their
``NAMESPACE`` files; irr exports by ``exportPattern(".")``, so its exports are the top-level
objects of its ``R/`` files). APS's two exports (``calculate_phi``, ``calculate_psi``; no
tarball is stored) and psych's three functions are checked by name.
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "docs" / "r-to-python.md"
CANDIDATES = [ROOT.parent / "shared" / "r-peers", Path("/work/shared/r-peers")]
PEERS = next((p for p in CANDIDATES if p.is_dir()), None)
TARBALLS = {"irr": "irr_0.84.1.tar.gz", "irrCAC": "irrCAC_1.0.tar.gz", "optRF": "optRF_1.2.1.tar.gz"}

pytestmark = pytest.mark.skipif(
    PEERS is None, reason="the R source tarballs (../shared/r-peers/*.tar.gz) are not on this machine")

_TOP_LEVEL = re.compile(r'^"?([A-Za-z.][A-Za-z0-9._]*)"?\s*(?:<-|=)', re.MULTILINE)


def r_exports(package):
    """Names a package exports: its ``export(...)`` lines, and for ``exportPattern`` the matching
    top-level objects of its R/ files."""
    with tarfile.open(PEERS / TARBALLS[package]) as tar:
        namespace = tar.extractfile(f"{package}/NAMESPACE").read().decode()
        names = set(re.findall(r"^export\(([^)]+)\)", namespace, re.MULTILINE))
        for pattern in re.findall(r'^exportPattern\("([^"]+)"\)', namespace, re.MULTILINE):
            for member in tar.getmembers():
                if re.fullmatch(rf"{package}/R/[^/]+\.[rR]", member.name):
                    source = tar.extractfile(member).read().decode("latin-1")
                    names |= {n for n in _TOP_LEVEL.findall(source) if re.search(pattern, n)}
    return {n.strip().strip('"') for n in names}


def mapped_names():
    """Every R-like token inside the map's code spans (`...`)."""
    spans = re.findall(r"`([^`]+)`", MAP.read_text(encoding="utf-8"))
    return {tok for span in spans for tok in re.findall(r"[A-Za-z.][A-Za-z0-9._]*", span)}


def test_export_lists_are_read():
    # the tarballs' NAMESPACE files, read independently: irr 0.84.1 has 21 top-level objects
    # (19 functions and its two print methods), irrCAC 1.0 exports 28 names, optRF 1.2.1 six
    assert len(r_exports("irr")) == 21
    assert {"kappa2", "stuart.maxwell.mh", "N2.cohen.kappa", "print.icclist"} <= r_exports("irr")
    assert len(r_exports("irrCAC")) == 28
    assert r_exports("optRF") == {"estimate_numtrees", "estimate_stability", "measure_stability",
                                  "opt_importance", "opt_prediction", "plot_stability"}


@pytest.mark.parametrize("package", sorted(TARBALLS))
def test_every_export_is_in_the_map(package):
    missing = sorted(r_exports(package) - mapped_names())
    assert not missing, f"docs/r-to-python.md does not list {package}'s {missing}"


def test_aps_and_psych_functions_are_in_the_map():
    assert {"calculate_phi", "calculate_psi", "ICC", "cohen.kappa", "alpha"} <= mapped_names()


_CALL = re.compile(r"`(predstab(?:\.\w+)+)\(([^`]*)\)")


def _top_level_arguments(text):
    """``a, b={"x": 1, "y": 2}, *, c=(1, 2)`` -> ``["a", 'b={"x": 1, "y": 2}', "*", "c=(1, 2)"]``."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [p for p in [*parts, current.strip()] if p]


def test_signatures_in_the_map_use_the_functions_parameter_names():
    # a reader copies `predstab.kappa_sample_size(k1, k0, ...)` and gets a TypeError on k1=...;
    # every keyword written in the map, and every name of a signature written out (with * or /),
    # is a parameter of the function
    import inspect

    import predstab

    checked, wrong = 0, []
    for name, arguments in _CALL.findall(MAP.read_text(encoding="utf-8")):
        obj = predstab
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        parameters = inspect.signature(obj).parameters
        tokens = _top_level_arguments(arguments)
        signature_form = "*" in tokens or "/" in tokens
        for token in tokens:
            if token in ("*", "/", "...") or token.startswith("..."):
                continue
            key = token.split("=", 1)[0].strip() if "=" in token else (token if signature_form else None)
            if key is None or not key.isidentifier():
                continue
            checked += 1
            if key not in parameters:
                wrong.append(f"{name}: {key}")
    assert checked > 150
    assert wrong == []
