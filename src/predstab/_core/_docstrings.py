"""Shared pieces of numpydoc docstrings, written once (scipy's ``_lib.doccer`` idea).

A docstring names a piece by a line holding only ``%(name)s``; :func:`fill_doc` replaces that
line by the piece, indented as the placeholder is. Pieces are plain numpydoc text without
indentation. A docstring without placeholders is left as it is; an unknown name raises at
import time, so a typo cannot reach the built documentation.

Examples
--------
>>> CONFIDENCE = '''confidence_level : float, default 0.95
...     Confidence level of the interval.'''
>>> @fill_doc(confidence_level=CONFIDENCE)
... def f(*, confidence_level=0.95):
...     '''Do something.
...
...     Parameters
...     ----------
...     %(confidence_level)s
...     '''
>>> print(f.__doc__.splitlines()[4])
    confidence_level : float, default 0.95
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["fill_doc", "fill_docstring"]

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.M)


def fill_docstring(doc, pieces):
    """``doc`` with every ``%(name)s`` line replaced by ``pieces[name]``, indented as the line."""
    if not doc:
        return doc

    def sub(match):
        name = match["name"]
        if name not in pieces:
            raise KeyError(f"docstring piece %({name})s is not defined; known: {sorted(pieces)}")
        return textwrap.indent(textwrap.dedent(pieces[name]).strip("\n"), match["indent"])

    return _PLACEHOLDER.sub(sub, doc)


def fill_doc(**pieces):
    """Decorator: fill the ``%(name)s`` lines of the object's docstring from ``pieces``."""
    def decorator(obj):
        obj.__doc__ = fill_docstring(obj.__doc__, pieces)
        return obj

    return decorator
