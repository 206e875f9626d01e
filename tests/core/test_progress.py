"""The progress bar and the progress callback protocol (``predstab._core._progress``): the
line drawn at each step, only on a terminal, and the steps reaching every kind of callable."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

from predstab._core import _progress


# ----------------------------------------------------------------------------- progress bar
class _Stream:
    def __init__(self, tty=False):
        self.parts, self.flushes, self.tty = [], 0, tty

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        self.flushes += 1

    def isatty(self):
        return self.tty


class _Clock:
    def __init__(self, start=100.0):
        self.now = start

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(time, "perf_counter", fake)
    return fake


def test_progress_bar_lines_at_given_steps(clock):
    stream = _Stream()
    bar = _progress.ProgressBar("tuning", total=4, stream=stream, enabled=True, width=8)
    clock.now = 100.5
    bar(1)
    clock.now = 100.55  # 0.05 s later: not redrawn
    bar(2)
    clock.now = 100.65  # 0.15 s after the last drawing
    bar()               # advances by one: 3
    clock.now = 100.66  # the end is always drawn
    bar(np.int64(4), 4.0)
    bar.close()
    assert stream.parts == ["\rtuning [##......] 1/4   0.5s", "\rtuning [######..] 3/4   0.7s",
                            "\rtuning [########] 4/4   0.7s", "\n"]
    assert stream.flushes == 4
    bar.close()  # nothing drawn since: no second line end
    assert stream.parts[-1] == "\n" and len(stream.parts) == 4


def test_progress_bar_defaults_unknown_total_and_overflow(clock):
    stream = _Stream()
    bar = _progress.ProgressBar(stream=stream, enabled=True)
    clock.now = 112.25
    bar(3.0, None, "extra", key="ignored")
    assert stream.parts == ["\rfitting 3  12.2s"]
    bar = _progress.ProgressBar(stream=stream, enabled=True, total=2)
    clock.now = 113.0
    bar(5)
    assert stream.parts[-1] == "\rfitting [" + "#" * 28 + "] 5/2   0.8s"
    assert bar.done == 5 and bar.total == 2


def test_progress_bar_only_on_a_terminal(clock, capsys):
    pipe, tty, plain = _Stream(tty=False), _Stream(tty=True), io.StringIO()
    assert not _progress.ProgressBar(stream=pipe).enabled and _progress.ProgressBar(stream=tty).enabled
    assert _progress.ProgressBar(stream=tty, enabled=False).enabled is False
    assert _progress.ProgressBar(stream=pipe, enabled=1).enabled is True
    assert _progress.ProgressBar(stream=object()).enabled is False  # a stream without isatty
    for stream in (pipe, plain):
        bar = _progress.ProgressBar(stream=stream, total=2)
        clock.now += 1
        bar(1)
        bar(2)
        bar.close()
        assert bar.done == 2
    assert pipe.parts == [] and plain.getvalue() == ""
    bar = _progress.ProgressBar(stream=tty)
    bar.close()  # enabled, nothing drawn: nothing written
    assert tty.parts == [] and tty.flushes == 0
    bar = _progress.ProgressBar(total=1, enabled=True)  # stderr by default
    clock.now += 1
    bar(1)
    bar.close()
    assert capsys.readouterr().err == "\rfitting [" + "#" * 28 + "] 1/1   1.0s\n"


def test_progress_bar_first_step_reuse_after_close_and_redraw_interval(clock):
    clock.now = 0.0
    stream = _Stream()
    bar = _progress.ProgressBar("fit", total=2, stream=stream, enabled=True, width=4)
    clock.now = 0.1  # 0.1 s after the start (and no drawing yet): drawn
    bar()
    assert bar.done == 1 and stream.parts == ["\rfit [##..] 1/2   0.1s"]
    bar.close()
    bar = _progress.ProgressBar("fit", total=3, stream=stream, enabled=True, width=3)
    clock.now = 5.0
    bar(1)
    bar.close()
    clock.now = 5.01  # closed: the next drawing starts a new line at once
    bar(2)
    assert stream.parts[-3:] == ["\rfit [#..] 1/3   4.9s", "\n", "\rfit [##.] 2/3   4.9s"]  # from 0.1 s


def test_progress_bar_starts_a_line_per_step_and_the_steps_reach_every_callable(clock):
    stream = _Stream()
    bar = _progress.ProgressBar(stream=stream, enabled=True, width=4)
    clock.now = 101.0
    bar(1, 2, step="fit")
    clock.now = 101.05  # a new step: a new line, drawn at once, its time counted from its start
    bar(1, 4, step="predict")
    clock.now = 101.1  # the same step within 0.1 s: not redrawn
    bar(2, 4, step="predict")
    clock.now = 102.05
    bar(4, 4, step="predict")
    bar.close()
    assert stream.parts == ["\rfit [##..] 1/2   0.0s", "\n", "\rpredict [#...] 1/4   0.0s",
                            "\rpredict [####] 4/4   1.0s", "\n"]
    seen = []
    named = _progress.Steps(lambda done, total, step=None: seen.append((step, done, total)))
    plain = _progress.Steps(lambda done, total: seen.append((done, total)))
    anything = _progress.Steps(lambda *args, **kwargs: seen.append((args, kwargs)))
    for steps in (named, plain, anything):
        steps.tick("bands", np.int64(3), 5.0)
        steps.callback("fit")(1, 2)
    assert seen == [("bands", 3, 5), ("fit", 1, 2), (3, 5), (1, 2), ((3, 5), {"step": "bands"}),
                    ((1, 2), {"step": "fit"})]
    silent = _progress.Steps(None)
    assert not silent and silent.callback("fit") is None and named and _progress.steps(named) is named
    silent.tick("fit", 1, 2)  # nothing to report to: nothing happens
    assert _progress.Steps(print)._named is False  # a builtin without a signature: the plain protocol
    for bad in ("yes", 3, False):
        with pytest.raises(TypeError, match="`progress` must be True, a callable"):
            _progress.check_progress(bad)
