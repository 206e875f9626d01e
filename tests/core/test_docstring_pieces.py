"""Shared docstring pieces (predstab._core._docstrings): filled at the placeholder's indent."""

import pytest

from predstab._core._docstrings import fill_doc, fill_docstring


def test_a_piece_is_indented_as_its_placeholder_and_other_lines_are_kept():
    doc = "Title.\n\n    Parameters\n    ----------\n    %(x)s\n    y : int\n"
    piece = "x : float\n    The x.\n"
    assert fill_docstring(doc, {"x": piece}) == (
        "Title.\n\n    Parameters\n    ----------\n    x : float\n        The x.\n    y : int\n")
    assert fill_docstring(None, {"x": piece}) is None
    assert fill_docstring("100%(x)s", {}) == "100%(x)s"  # only a line of its own is a placeholder


def test_an_unknown_piece_fails_at_decoration():
    with pytest.raises(KeyError, match=r"%\(nope\)s is not defined"):
        @fill_doc(x="x : int")
        def f():
            """%(nope)s"""
