"""Declared parameter constraints: one validation layer for every public function.

In the spirit of scikit-learn's ``validate_params``: each public function declares, per
parameter, what it accepts, and :func:`validate_params` checks the call against the
declaration before the function runs. Every violation raises
:class:`InvalidParameterError` (a ``ValueError`` and a ``TypeError``, so callers catching
either keep working) with one message style::

    `confidence_level` must be a float in the open interval (0, 1); got 1.5.

The declarations are kept on the function (``func._parameter_constraints``), so the common
tests can generate invalid values for every declared parameter of every public function
(:meth:`Constraint.invalid_values`).

Constraints
-----------
- :class:`Interval` -- ``Interval(Real, 0, 1, closed="neither")``, ``Interval(Integral, 2, None)``
- :class:`Options` -- ``Options({"soft", "hard"})`` (strings, or any hashable values)
- ``"array-like"`` -- anything :func:`numpy.asarray` turns into an array of at least one
  dimension (the reader of the function then checks shape and content)
- :class:`HasMethods` -- ``HasMethods(["fit", "predict"])``
- ``"boolean"``, ``"random_state"``, ``"callable"``, ``"iterable"``, ``None``, a type (``str``, ``dict``)

Examples
--------
>>> from numbers import Real
>>> @validate_params({"level": [Interval(Real, 0, 1, closed="neither")]})
... def f(x, *, level=0.95):
...     return level
>>> f(1, level=0.9)
0.9
>>> f(1, level=2)
Traceback (most recent call last):
...
predstab._core._validation.InvalidParameterError: `level` must be a float in the open interval (0, 1); got 2.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import numbers
from numbers import Integral, Real

import numpy as np

__all__ = ["InvalidParameterError", "Interval", "Options", "HasMethods", "validate_params", "check_param",
           "make_constraint", "renamed_parameters", "RENAMED_IN", "skip_nested_validation"]

RENAMED_IN = "0.2.0"  # the release whose renames CHANGELOG.md lists


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a public predstab function violates its declared constraint."""


class Constraint:
    """What a parameter accepts: ``is_satisfied_by``, a description and invalid examples."""

    def is_satisfied_by(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def invalid_values(self) -> list:
        """Values this constraint rejects (for the registry test)."""
        return []

    def __str__(self):  # pragma: no cover - interface
        raise NotImplementedError


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


class Interval(Constraint):
    """Numbers of ``type`` (``Real`` or ``Integral``) between ``left`` and ``right``.

    ``closed`` is "both", "left", "right" or "neither"; None for a bound means unbounded.
    Booleans are never numbers here. ``Real`` accepts integers; ``Integral`` accepts floats
    only when ``allow_integral_float`` (e.g. ``3.0``) is set.
    """

    def __init__(self, type, left, right, *, closed="both", allow_integral_float=False):
        if type not in (Real, Integral):
            raise ValueError(f"`type` must be Real or Integral; got {type!r}.")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"`closed` must be 'both', 'left', 'right' or 'neither'; got {closed!r}.")
        self.type, self.left, self.right, self.closed = type, left, right, closed
        self.allow_integral_float = allow_integral_float

    def _type_ok(self, value):
        if _is_bool(value):
            return False
        if self.type is Integral:
            if isinstance(value, numbers.Integral):
                return True
            return (self.allow_integral_float and isinstance(value, numbers.Real)
                    and float(value).is_integer())
        return isinstance(value, numbers.Real)

    def is_satisfied_by(self, value):
        if not self._type_ok(value):
            return False
        if isinstance(value, numbers.Real) and np.isnan(float(value)):
            return False
        left_ok = self.left is None or (value >= self.left if self.closed in ("both", "left")
                                        else value > self.left)
        right_ok = self.right is None or (value <= self.right if self.closed in ("both", "right")
                                          else value < self.right)
        return bool(left_ok and right_ok)

    def __str__(self):
        kind = "an integer" if self.type is Integral else "a float"
        if self.left is not None and self.right is None:
            op = ">=" if self.closed in ("both", "left") else ">"
            return f"{kind} {op} {self.left}"
        if self.right is not None and self.left is None:
            op = "<=" if self.closed in ("both", "right") else "<"
            return f"{kind} {op} {self.right}"
        if self.left is None and self.right is None:
            return kind
        lb = "[" if self.closed in ("both", "left") else "("
        rb = "]" if self.closed in ("both", "right") else ")"
        name = {"both": "closed", "neither": "open"}.get(self.closed, "half-open")
        return f"{kind} in the {name} interval {lb}{self.left}, {self.right}{rb}"

    def invalid_values(self):
        out = ["text", True]
        if self.left is not None:
            out.append(self.left - 1 if self.closed in ("both", "left") else self.left)
        if self.right is not None:
            out.append(self.right + 1 if self.closed in ("both", "right") else self.right)
        if self.type is Integral and not self.allow_integral_float:
            base = self.left if self.left is not None else 0
            out.append(base + 1.5)
        out.append(float("nan"))
        return out


class Options(Constraint):
    """One of a fixed set of values (exact match; strings are never prefix-matched)."""

    def __init__(self, options):
        self.options = tuple(options)

    def is_satisfied_by(self, value):
        try:
            # strings match as strings (numpy's str_ too); other values need their exact type, so
            # that True never passes for 1
            return any((isinstance(value, str) and value == o) if isinstance(o, str)
                       else (type(value) is type(o) and value == o) for o in self.options)
        except Exception:
            return False

    def __str__(self):
        shown = ", ".join(repr(o) for o in self.options)
        return f"one of {{{shown}}}"

    def invalid_values(self):
        return ["not-an-option", 3.5]


class _ArrayLike(Constraint):
    def is_satisfied_by(self, value):
        if value is None or isinstance(value, (str, bytes, dict, set)) or np.isscalar(value):
            return False
        if isinstance(value, (list, tuple)):
            return True  # ragged or empty sequences are the reader's to describe (shape, lengths)
        try:
            return np.ndim(value) >= 1 or hasattr(value, "__array__")
        except Exception:
            return False

    def __str__(self):
        return "an array-like"

    def invalid_values(self):
        return ["text", 3.0, {"a": 1}]


class _Boolean(Constraint):
    def is_satisfied_by(self, value):
        return _is_bool(value)

    def __str__(self):
        return "True or False"

    def invalid_values(self):
        return ["yes", 2]


class _RandomState(Constraint):
    def is_satisfied_by(self, value):
        if value is None or isinstance(value, (np.random.Generator, np.random.SeedSequence)):
            return True
        return isinstance(value, numbers.Integral) and not _is_bool(value) and value >= 0

    def __str__(self):
        return "None, a non-negative int or a numpy.random.Generator"

    def invalid_values(self):
        return ["seed", -1, 1.5, np.random.RandomState(0)]


class _Callable(Constraint):
    def is_satisfied_by(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"

    def invalid_values(self):
        return ["not callable"]


class _Iterable(Constraint):
    def is_satisfied_by(self, value):
        if isinstance(value, (str, bytes, dict)):
            return False
        try:
            iter(value)
        except TypeError:
            return False
        return True

    def __str__(self):
        return "an iterable"

    def invalid_values(self):
        return [object(), "text"]


class HasMethods(Constraint):
    """An object with all of the given methods (e.g. a scikit-learn estimator or CV splitter)."""

    def __init__(self, methods):
        self.methods = (methods,) if isinstance(methods, str) else tuple(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        shown = ", ".join(f"`{m}`" for m in self.methods)
        return f"an object with method{'s' if len(self.methods) > 1 else ''} {shown}"

    def invalid_values(self):
        return [object()]


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value):
        return value is None

    def __str__(self):
        return "None"


class _InstanceOf(Constraint):
    def __init__(self, type_):
        self.type = type_

    def is_satisfied_by(self, value):
        if self.type in (int, float) and _is_bool(value):
            return False
        return isinstance(value, self.type)

    def __str__(self):
        names = self.type if isinstance(self.type, tuple) else (self.type,)
        return "an instance of " + " or ".join(t.__name__ for t in names)

    def invalid_values(self):
        return [object()]


_NAMED = {"array-like": _ArrayLike, "boolean": _Boolean, "random_state": _RandomState,
          "callable": _Callable, "iterable": _Iterable}


def make_constraint(spec) -> Constraint:
    """Turn a declaration item (a Constraint, a name, None or a type) into a Constraint."""
    if isinstance(spec, Constraint):
        return spec
    if spec is None:
        return _NoneConstraint()
    if isinstance(spec, str):
        if spec not in _NAMED:
            raise ValueError(f"unknown constraint {spec!r}; use one of {sorted(_NAMED)}.")
        return _NAMED[spec]()
    if isinstance(spec, type) or (isinstance(spec, tuple) and all(isinstance(t, type) for t in spec)):
        return _InstanceOf(spec)
    raise ValueError(f"unknown constraint {spec!r}.")


def _describe(constraints) -> str:
    texts = [str(c) for c in constraints]
    if len(texts) == 1:
        return texts[0]
    return ", ".join(texts[:-1]) + " or " + texts[-1]


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_param(name, value, constraints):
    """Raise :class:`InvalidParameterError` unless ``value`` satisfies one of ``constraints``.

    Examples
    --------
    >>> check_param("voting", "soft", [Options({"soft", "hard"})])
    'soft'
    """
    constraints = [make_constraint(c) for c in constraints]
    if any(c.is_satisfied_by(value) for c in constraints):
        return value
    raise InvalidParameterError(f"`{name}` must be {_describe(constraints)}; got {_shown(value)}.")


def _renamed_keyword_error(func, kwargs, renamed):
    """The TypeError for the first keyword of ``kwargs`` that ``renamed`` maps to a new name, or None."""
    for old in kwargs:
        if old in renamed:
            return TypeError(f"{func.__qualname__}() has no parameter `{old}`: it was renamed "
                             f"`{renamed[old]}` in predstab {RENAMED_IN} (see CHANGELOG.md).")
    return None


def renamed_parameters(**renamed):
    """Decorator: calling with an old keyword raises a TypeError that names the new one.

    For the functions that :func:`validate_params` does not wrap (methods, the closed forms);
    a function with declared constraints passes ``renamed=`` to :func:`validate_params`
    instead, which adds no frame of its own. The map is kept as ``func._renamed_parameters``.

    Examples
    --------
    >>> @renamed_parameters(n_bootstrap="n_resamples")
    ... def f(*, n_resamples=100):
    ...     return n_resamples
    >>> f(n_bootstrap=5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: f() has no parameter `n_bootstrap`: it was renamed `n_resamples` in predstab ...
    """
    def decorator(func):
        _check_renamed(func, renamed)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            error = _renamed_keyword_error(func, kwargs, renamed)
            if error is not None:
                raise error
            return func(*args, **kwargs)

        wrapper._renamed_parameters = dict(renamed)
        return wrapper

    return decorator


def _check_renamed(func, renamed):
    parameters = inspect.signature(func).parameters
    clash = sorted(set(renamed) & set(parameters))
    missing = sorted(set(renamed.values()) - set(parameters))
    if clash or missing:
        raise ValueError(f"{func.__qualname__}: renamed parameters {clash} still exist or their new names "
                         f"{missing} do not.")


# True while a function declared with ``prefer_skip_nested_validation=True`` runs: the
# declared functions it calls skip their constraint checks (scikit-learn's
# ``skip_parameter_validation``). A context variable, so threads and tasks keep their own.
_SKIP_VALIDATION = contextvars.ContextVar("predstab_skip_validation", default=False)


@contextlib.contextmanager
def skip_nested_validation():
    """Within the block, declared functions run without checking their constraints.

    For an engine that calls public functions with arguments it has already validated (at
    every grid point, every resample): what :func:`validate_params`'s
    ``prefer_skip_nested_validation=True`` does for the whole body of a declared function.
    """
    token = _SKIP_VALIDATION.set(True)
    try:
        yield
    finally:
        _SKIP_VALIDATION.reset(token)


def validate_params(parameter_constraints, *, renamed=None, prefer_skip_nested_validation=False):
    """Decorator: check the declared parameters of every call before running the function.

    ``parameter_constraints`` maps parameter names to a list of accepted constraints
    (any one suffices). Undeclared parameters are not checked here (data arguments are
    read and checked by the function's reader). The declarations are available as
    ``func._parameter_constraints`` (as constraint objects).

    ``renamed`` maps keywords renamed in predstab 0.2.0 to their new names: a call with an old
    keyword raises a TypeError naming the new one (see :func:`renamed_parameters`).

    ``prefer_skip_nested_validation`` (scikit-learn's name): the declared functions that the
    function calls skip their constraint checks while it runs (it hands them values it has
    validated itself); calls from the user are always checked.

    The wrapper adds one frame between the caller and the function; predstab's warnings are
    issued through :func:`~predstab._core._exceptions.warn_outside`, which finds the first frame
    outside predstab, so they name the caller's line either way
    (``tests/core/test_param_registry.py`` checks this for the declared functions).
    """
    declared = {name: [make_constraint(c) for c in specs] for name, specs in parameter_constraints.items()}
    renamed = dict(renamed or {})

    def decorator(func):
        signature = inspect.signature(func)
        _check_renamed(func, renamed)
        unknown = set(declared) - set(signature.parameters)
        if unknown:
            raise ValueError(f"{func.__qualname__} declares constraints for unknown parameters "
                             f"{sorted(unknown)}.")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _SKIP_VALIDATION.get():  # called by an engine that validated its arguments
                return func(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                error = _renamed_keyword_error(func, kwargs, renamed)
                if error is not None:
                    raise error from None
                return func(*args, **kwargs)  # let Python report the call error itself
            for name, constraints in declared.items():
                if name in bound.arguments:
                    check_param(name, bound.arguments[name], constraints)
            if prefer_skip_nested_validation:
                with skip_nested_validation():
                    return func(*args, **kwargs)
            return func(*args, **kwargs)

        wrapper._parameter_constraints = declared
        wrapper._renamed_parameters = renamed
        return wrapper

    return decorator
