"""Issue 34, item 4: the default result says when heavy-tailed refits make the one-shape assumption
matter, and names the objects of heaviest-tailed refits (no test, no draws: from the moments).

Target: the pooled-kurtosis intervals assume that every object's refits share one shape; random
forests with t2 noise cover their worst object well below nominal (docs/benchmarks/coverage.md),
and the refits of a draw cannot always show it. Rule (written out here with scipy's k-statistics
and kurtosis, independently of the library): the note is given when the pooled excess kurtosis
``sum k_4 / sum sigma^4-hat`` less two standard errors ``sqrt(24 / refits)`` is above 1 in at
least 10 objects of 4 refits; it names the (at most 3) objects of largest sample kurtosis above
the objects' average sample kurtosis. The intervals themselves are unchanged.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import phi

BASE = np.array([-1.0, 1.0]) * math.sqrt(0.5)  # D_e = 1


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _rule_by_hand(x, min_objects=10):
    """(note given, named rows, their kurtosis, the objects' average) by the rule of the docstring
    (missing refits dropped; objects of fewer than 4 refits left out)."""
    rows = [row[~np.isnan(row)] for row in x]
    keep = np.array([r.size >= 4 for r in rows])
    n = np.array([r.size for r in rows], dtype=float)[keep]
    k4 = np.array([stats.kstat(r, 4) for r, k in zip(rows, keep, strict=True) if k])
    k2 = np.array([stats.kstat(r, 2) for r, k in zip(rows, keep, strict=True) if k])
    sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
    kappa = k4.sum() / sigma4.sum()
    given = kappa - 2 * math.sqrt(24 / n.sum()) > 1 and keep.sum() >= min_objects
    b2 = np.full(len(rows), np.nan)
    b2[keep] = [stats.kurtosis(r, fisher=False, bias=True) for r, k in zip(rows, keep, strict=True) if k]
    average = np.sum(n * b2[keep]) / n.sum()
    above = np.flatnonzero(b2 > average)
    named = above[np.argsort(-b2[above])][:3]
    return given, named, b2[named], average


def _named(note):
    if "Heaviest-tailed here" not in note:
        return None
    return [int(v) for v in note.split("0-based rows ")[1].split(" (")[0].split(", ")]


def test_objects_of_far_heavier_tails_are_named_by_default():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 20))
    x[[3, 17, 25], 0] += np.array([4.0, 6.0, 3.0])  # one extreme refit each
    res = _quiet(phi, x, BASE)
    given, rows, b2, average = _rule_by_hand(x)
    assert given
    # the two larger outliers lead; the third (3 sd) is below row 9 (normal refits, kurtosis 4.76 by chance)
    assert _named(res.interval_note) == [17, 3, 9] == rows.tolist()
    assert res.per_object_shape_outlier is None  # no test ran: the default stays cheap
    shown = res.interval_note.split("(sample kurtosis ")[1].split(" against their average ")
    assert shown[0].split(", ") == [f"{v:.3g}" for v in b2]
    assert shown[1].split(")")[0] == f"{average:.3g}"
    # the note word for word: the pooled excess kurtosis by the rule's k-statistics
    k4 = np.array([stats.kstat(r, 4) for r in x])
    k2 = np.array([stats.kstat(r, 2) for r in x])
    kappa = k4.sum() / np.sum((k2 * k2 - k4 / 20) * 19 / 21)
    assert res.interval_note == (
        f"The refits are heavy-tailed (pooled excess kurtosis {kappa:.3g}): the per-object intervals assume "
        "that every object's refits share that shape, and an object whose refits are heavier-tailed than the "
        "others' covers less than nominal, most when its rare extreme refits are missing from these (random "
        "forests with t2 noise: the worst of 30 objects 0.74 at 20 refits, docs/benchmarks/coverage.md). "
        f"Heaviest-tailed here: 0-based rows 17, 3, 9 (sample kurtosis {', '.join(f'{v:.3g}' for v in b2)} "
        f"against their average {average:.3g}); object_interval=\"checked\" tests each object against the "
        "pooled shape.")
    # the intervals are those of object_interval="pooled" (the note changes no number)
    pooled_res = _quiet(phi, x, BASE, object_interval="pooled")
    np.testing.assert_array_equal(res.per_object_low, pooled_res.per_object_low)
    np.testing.assert_array_equal(res.per_object_high, pooled_res.per_object_high)


def test_normal_refits_get_no_note():
    rng = np.random.default_rng(5)
    res = _quiet(phi, rng.normal(size=(30, 20)) * rng.uniform(0.3, 1.0, size=(30, 1)), BASE)
    assert res.interval_note == ""


def test_fewer_than_ten_objects_get_no_note():
    rng = np.random.default_rng(2)
    x = rng.standard_t(5, size=(9, 20))
    x[3, 0] += 8.0
    tenth = np.vstack([x, rng.standard_t(5, size=(1, 20))])
    assert _named(_quiet(phi, tenth, BASE).interval_note) == [3, 0, 7] == _rule_by_hand(tenth)[1].tolist()
    assert _rule_by_hand(x, min_objects=9)[0]  # heavy enough, but 9 objects
    assert _named(_quiet(phi, x, BASE).interval_note) is None


@pytest.mark.parametrize("seed", [*range(16), 20, 47, 48, 65, 66, 165])
def test_the_note_follows_the_rule(seed):
    """Calls around the threshold (t-distributed refits of 3 to 7 degrees of freedom; seeds 20 to
    165: the pooled excess kurtosis less two standard errors within 0.3 of 1): the note is given
    exactly where the rule written out above gives it, naming the same rows."""
    rng = np.random.default_rng([34, seed])
    df = 3 + seed % 5
    m, n = (12, 8) if seed % 2 else (25, 12)
    x = rng.standard_t(df, size=(m, n)) * rng.uniform(0.5, 2.0, size=(m, 1))
    given, rows, _, _ = _rule_by_hand(x)
    named = _named(_quiet(phi, x, BASE).interval_note)
    assert (named is not None) == given
    if given:
        assert named == rows.tolist()


def test_checked_flags_replace_the_note():
    """Where object_interval="checked" flags objects, its note (which tests them) is given instead."""
    rng = np.random.default_rng(4)
    x = rng.standard_t(6, size=(30, 20))
    x[17, 0] += 60.0
    res = _quiet(phi, x, BASE, object_interval="checked")
    assert res.n_shape_outliers >= 1
    assert "Heaviest-tailed here" not in res.interval_note


def test_objects_with_missing_refits_count_by_their_refits():
    # five objects of 7 refits among 25 of 12: the average kurtosis weighs each object by its refits,
    # the standard error counts the refits present, objects of 3 refits are left out
    rng = np.random.default_rng(8)
    x = rng.standard_t(4, size=(25, 12)) * rng.uniform(0.5, 2.0, size=(25, 1))
    x[:5, 7:] = np.nan
    x[5, 3:] = np.nan
    x[1, 0] += 9.0
    given, rows, b2, average = _rule_by_hand(x)
    assert given
    res = _quiet(phi, x, BASE)
    assert _named(res.interval_note) == rows.tolist()
    assert res.interval_note.split(" against their average ")[1].split(")")[0] == f"{average:.3g}"
    kept = [row[~np.isnan(row)] for row in x if np.count_nonzero(~np.isnan(row)) >= 4]
    unweighted = np.mean([stats.kurtosis(row, fisher=False) for row in kept])
    assert f"{unweighted:.3g}" != f"{average:.3g}"  # the weights show


def test_a_heavier_tailed_object_misses_where_its_refits_look_light():
    # issue 34, item 4, what the page measures on forests (docs/benchmarks/coverage.md, "Where the
    # result does not flag the object"), in a fixed-seed miniature: 30 objects of t5 refits, object 0 a
    # normal whose refits jump now and then (excess kurtosis about 12 over its 300 refits), R = 20
    # refits drawn from each object's 300 (the truth: their variance). Object 0 covers below the 0.85
    # goal, also in the draws whose note does not name it: half its misses come where its refits
    # spread less than its variance (no jump drawn) and look like the others'; the default's note,
    # given in nearly every draw, says for every object, named or not, that heavier tails cover less.
    rng = np.random.default_rng(1)
    pool = rng.standard_t(5, size=(30, 300)) * rng.uniform(0.2, 0.6, size=(30, 1))
    pool[0] = rng.normal(0, 0.3, 300) + (rng.random(300) < 0.05) * rng.normal(0, 2.0, 300)
    truth_var = pool.var(axis=1, ddof=1)
    truth = 1 - truth_var  # D_e = 1
    draws = np.random.default_rng(101)
    hits, named, noted, light = [], [], [], []
    for _ in range(100):
        x = pool[:, draws.choice(300, 20, replace=False)]
        res = _quiet(phi, x, BASE)
        hits.append((res.per_object_low <= truth) & (truth <= res.per_object_high))
        noted.append(_named(res.interval_note) is not None)
        named.append(noted[-1] and 0 in _named(res.interval_note))
        light.append(x[0].var(ddof=1) < truth_var[0])
        if noted[-1]:
            assert "covers less than nominal, most when its rare extreme refits are missing" in (
                res.interval_note)
    hits, named, noted, light = map(np.array, (hits, named, noted, light))
    per_object = hits.mean(axis=0)
    assert np.median(per_object) >= 0.93 and per_object[0] == 0.71  # 100 draws
    misses = ~hits[:, 0]
    assert misses.sum() == 29 and light[misses].sum() == 14  # about half: no jump among the 20 drawn
    assert named.sum() == 44 and hits[~named, 0].sum() == 42  # unnamed draws cover 42 / 56 = 0.75
    assert noted.sum() == 95


def test_capped_note_states_the_measured_coverage_claim_in_full():
    # the sentence a capped pooled-kurtosis interval carries (its claim, from coverage.md), word
    # for word: gamma(2) refits of 5 are heavier than 5 refits resolve within the width budget
    rng = np.random.default_rng(0)
    res = phi(rng.normal(size=(30, 1)) + rng.gamma(2, size=(30, 5)), rng.normal(size=40))
    assert res.interval_method == "pooled-kurtosis chi-square"
    assert ("use at most 0.82. Measured coverage is at least 0.93 for refits of normal, gamma(2), t5, "
            "lognormal(0.5), mixture or beta shape (docs/benchmarks/coverage.md); heavier tails may "
            "cover less.") in res.interval_note
