"""predstab's core: parameter validation, results and their R-style printing, the one
convention for degenerate data, warnings, stacks of matrices, rating matrices and the readers
of input files. Private: everything public is re-exported by :mod:`predstab`."""
