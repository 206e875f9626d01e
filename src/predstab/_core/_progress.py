"""Progress of long computations: the callback protocol and the one progress bar.

A core-level module (no I/O layer, no surface): tuning and the tree pool report their steps
here, and the command line draws the same :class:`ProgressBar`.

The protocol. A ``progress`` argument is None (silent), True (a :class:`ProgressBar` on
stderr, one line per step) or a callable. The callable is called as ``progress(done,
total)`` as each long step advances; ``done`` counts up to ``total`` within a step and starts
again at the next one. A callable that takes a keyword argument ``step`` (or ``**kwargs``)
is also told which step it is: ``progress(done, total, step="predicting")``.
"""

from __future__ import annotations

import inspect

__all__ = ["ProgressBar", "Steps", "check_progress", "steps"]


class ProgressBar:
    """A one-line progress bar on a stream (stderr), drawn only when that stream is a terminal.

    Call it as ``bar(done, total)`` (the progress callback protocol of
    :func:`predstab.repeated_predictions` and :func:`predstab.tune_num_learners`) or ``bar()``
    to advance by one. ``bar(done, total, step="predicting")`` starts a new line labelled
    with the step when the step changes (the previous line is kept, with its last count).
    """

    def __init__(self, label="fitting", *, total=None, stream=None, enabled=None, width=28):
        import sys
        import time

        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = bool(isatty()) if enabled is None else bool(enabled)
        self.label, self.total, self.width = label, total, width
        self.done = 0
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._step = None

    def __call__(self, done=None, total=None, *args, step=None, **kwargs):
        if step is not None and step != self._step:
            import time

            if self._step is not None or self._last_draw:
                self.close()
            self._step, self.label, self.done = step, step, 0
            self._start = time.perf_counter()
        self.done = self.done + 1 if done is None else int(done)
        if total is not None:
            self.total = int(total)
        if not self.enabled:
            return
        import time

        now = time.perf_counter()
        finished = self.total is not None and self.done >= self.total
        if now - self._last_draw < 0.1 and not finished:
            return
        self._last_draw = now
        elapsed = now - self._start
        if self.total:
            filled = int(self.width * min(self.done, self.total) / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            text = f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s"
        else:
            text = f"\r{self.label} {self.done} {elapsed:5.1f}s"
        self.stream.write(text)
        self.stream.flush()

    def close(self):
        """End the line (if anything was drawn)."""
        if self.enabled and self._last_draw:
            self.stream.write("\n")
            self.stream.flush()
        self._last_draw = 0.0


def check_progress(progress, name="progress"):
    """``progress`` validated: None, True or a callable (a TypeError naming ``name`` otherwise)."""
    if progress is None or progress is True or callable(progress):
        return progress
    raise TypeError(f"`{name}` must be True, a callable progress(done, total) or None; "
                    f"got {type(progress).__name__}.")


def _takes_step(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: the plain protocol
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == "step" and p.kind is not p.POSITIONAL_ONLY)
               for p in params)


class Steps:
    """The steps of one computation, reported to a ``progress`` argument (module docstring).

    ``steps.tick(label, done, total)`` reports; :meth:`callback` gives a plain
    ``tick(done, total)`` for one step, to hand to lower functions. ``close()`` ends the bar
    that ``progress=True`` drew. Falsy when there is nothing to report to.
    """

    def __init__(self, progress):
        progress = check_progress(progress)
        self._bar = ProgressBar(enabled=True) if progress is True else None
        self._fn = self._bar if progress is True else progress
        self._named = self._fn is not None and _takes_step(self._fn)

    def __bool__(self):
        return self._fn is not None

    def __call__(self, done, total, step=None):
        self.tick(step, done, total)

    def tick(self, step, done, total):
        if self._fn is None:
            return
        if self._named:
            self._fn(int(done), int(total), step=step)
        else:
            self._fn(int(done), int(total))

    def callback(self, step):
        """``tick(done, total)`` of one step, or None without a ``progress``."""
        if self._fn is None:
            return None
        return lambda done, total: self.tick(step, done, total)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def steps(progress):
    """``progress`` as :class:`Steps` (a :class:`Steps` is passed through)."""
    return progress if isinstance(progress, Steps) else Steps(progress)
