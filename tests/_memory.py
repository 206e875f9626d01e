"""Peak memory of one call, for the tests that bound what a function allocates."""

import tracemalloc


def traced_peak(call):
    """``(call(), peak)``: the result of ``call`` and the largest memory traced while it ran
    (tracemalloc counts numpy's buffers), tracing stopped whatever happens."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
