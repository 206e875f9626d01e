"""The core's tests: validation, results and their R-style print, the degenerate-data
convention, the readers of ratings, the progress bar, and the cross-cutting tests driven by the
registry of every public function and measure (``tests/_registry.py``: test_common,
test_properties, test_fuzz, test_bad_input, test_param_registry, test_public_api,
test_result_convention, test_scale_invariance, test_stacks, test_dask, test_renames), the
layering of the package (test_layers) and reproducibility across ``n_jobs`` and backends.

No fixture is shared by two files of this folder: the registry's tables are what they share.
"""
