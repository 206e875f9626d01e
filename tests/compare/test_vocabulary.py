"""One vocabulary in predstab.compare (issue 24, item 5; coord/HELPERS.md decisions).

The pair is ``a, b`` and data are positional-only, options keyword-only; an old keyword raises
a TypeError naming the new one (also for the positional-only renames, which cannot be passed by
keyword at all); an old result attribute raises an AttributeError naming the new one; the
removed names (``compare.plot_cd_diagram``, ``compare.permutation_test``) raise an
AttributeError naming their replacement. tests/test_renames.py checks the CHANGELOG lines.
"""

import inspect
import warnings

import pytest

from predstab import compare
from tests.compare._examples import CALLS

FUNCTIONS = {name: getattr(compare, name) for name in compare.__all__
             if inspect.isfunction(getattr(compare, name))}
# inputs that are neither data nor options: the quantities of a design (R's power.t.test(n, delta)
# and friends), and bootstrap_ci's statistic (scipy.stats.bootstrap(data, statistic))
DESIGN = {("power_ttest", "d"), ("power_ttest", "n"), ("power_ttest_n", "d"), ("seeds_needed", "d"),
          ("detectable_effect", "n"), ("games_needed", "p"), ("expected_max_normal", "k"),
          ("bootstrap_ci", "statistic")}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_data_are_positional_only_and_options_keyword_only(name):
    for param in inspect.signature(FUNCTIONS[name]).parameters.values():
        if (name, param.name) in DESIGN:
            assert param.kind is param.POSITIONAL_OR_KEYWORD, (name, param.name)
        elif param.kind is not param.KEYWORD_ONLY:
            assert param.kind is param.POSITIONAL_ONLY, (name, param.name, param.kind)


def test_the_pair_is_a_b_everywhere():
    # no scores_a / scores_x / pred_a / old / new left; the data of a comparison are a, b
    old_names = {"scores_a", "scores_b", "scores_x", "scores_y", "pred_a", "pred_b", "old", "new", "table",
                 "n_permutations", "correct", "alpha", "se", "distribution"}
    for name, func in FUNCTIONS.items():
        assert not (set(inspect.signature(func).parameters) & old_names), name


RENAMED = sorted((name, old, new) for name, func in FUNCTIONS.items()
                 for old, new in getattr(func, "_renamed_parameters", {}).items())


def test_every_rename_of_the_decision_list_is_declared():
    assert {(name, old) for name, old, _ in RENAMED} >= {
        ("ttest", "scores_a"), ("wilcoxon", "correct"), ("mean_permutation_test", "n_permutations"),
        ("paired_bootstrap", "pred_a"), ("probability_of_improvement", "scores_x"), ("mcnemar", "old"),
        ("friedman_nemenyi", "alpha"), ("bonferroni_dunn", "alpha"), ("power_ttest", "alpha"),
        ("power_ttest_n", "alpha"), ("seeds_needed", "alpha"), ("detectable_effect", "alpha"),
        ("games_needed", "alpha")}


@pytest.mark.parametrize(("name", "old", "new"), RENAMED)
def test_an_old_keyword_in_a_valid_call_names_the_new_one(name, old, new):
    # the valid call of _examples.CALLS with the old keyword added: a TypeError naming the new
    # name, also where the new name is positional-only (a, b)
    args, kwargs = CALLS[name]
    with pytest.raises(TypeError, match=rf"{name}\(\) has no parameter `{old}`: it was renamed `{new}`"):
        FUNCTIONS[name](*args, **{**kwargs, old: args[0] if args else 1})


def test_the_old_order_of_probability_of_improvement_is_named_by_its_keywords():
    # probability_of_improvement(scores_x, scores_y) was P(X > Y): X is the one that improves, B
    with pytest.raises(TypeError, match="`scores_x`: it was renamed `b`"):
        compare.probability_of_improvement([1.0, 2.0], scores_x=[2.0, 3.0])
    with pytest.raises(TypeError, match="`scores_y`: it was renamed `a`"):
        compare.probability_of_improvement([1.0, 2.0], scores_y=[2.0, 3.0])


ATTRIBUTES = sorted((cls_name, old, new) for cls_name in compare.__all__
                    if inspect.isclass(getattr(compare, cls_name))
                    for old, new in vars(getattr(compare, cls_name)).get("_renamed_attributes", {}).items())


def test_every_attribute_rename_of_the_decision_list_is_declared():
    assert {(cls, old) for cls, old, _ in ATTRIBUTES} == {
        ("PairedBootstrapResult", "se_a"), ("PairedBootstrapResult", "se_b"),
        ("PairedBootstrapResult", "se_difference"), ("PairedBootstrapResult", "distribution"),
        ("BootstrapResult", "distribution"), ("StratifiedBootstrapResult", "se"),
        ("StratifiedBootstrapResult", "distribution"), ("ProbabilityOfImprovement", "distribution"),
        ("MeanCI", "se"), ("FriedmanNemenyiResult", "alpha"), ("BonferroniDunnResult", "alpha")}


@pytest.mark.parametrize(("cls_name", "old", "new"), ATTRIBUTES)
def test_an_old_attribute_names_the_new_one(cls_name, old, new, example_results):
    result = next(r for r in example_results.values() if type(r).__name__ == cls_name)
    assert hasattr(result, new) and not hasattr(result, old)
    with pytest.raises(AttributeError, match=rf"{cls_name}\.{old} was renamed `{new}` in predstab 0\.2\.0"):
        getattr(result, old)


@pytest.mark.parametrize(("name", "replacement"), [
    ("plot_cd_diagram", "predstab.plotting.plot_cd_diagram"),
    ("permutation_test", "predstab.compare.mean_permutation_test"),
])
def test_a_removed_name_raises_naming_its_replacement(name, replacement):
    assert name not in compare.__all__ and not hasattr(compare, name)
    with pytest.raises(AttributeError, match=replacement.replace(".", r"\.")):
        getattr(compare, name)
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        compare.nothing_here  # noqa: B018


def test_the_cd_diagram_is_a_figure_of_the_plotting_surface(example_results):
    from matplotlib.figure import Figure

    from predstab import plotting

    fn, bd = example_results["friedman_nemenyi"], example_results["bonferroni_dunn"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no pyplot, no warning
        figures = [fn.plot(), bd.plot(), plotting.plot_cd_diagram(fn), plotting.plot(bd)]
    assert all(isinstance(f, Figure) for f in figures)
    with pytest.raises(TypeError, match="`alpha`: it was renamed `significance`"):
        plotting.plot_cd_diagram(fn, alpha=0.1)
    with pytest.raises(TypeError, match="`alpha`: it was renamed `significance`"):
        fn.plot(alpha=0.1)
