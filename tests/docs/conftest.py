"""The documentation's tests: every code block of the pages and the README runs and prints what
the text says (test_docs, test_readme), the site builds, the R -> Python map names functions that
exist (test_r_map), the validation suite and its verbatim copy of the R reference
(test_validation), and the APS paper's replication (test_replication).

No fixture is shared by two files of this folder.
"""
