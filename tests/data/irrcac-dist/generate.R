# irrCAC 1.0's *.dist functions on count tables (objects x categories), for
# tests/agreement/test_cac_dist.py. Run from this folder: Rscript generate.R > expected.json
# The tables of the c_*/o_* cases are the count tables of validation's raw cases (built with
# pandas.crosstab in the test file's count_table); frac_* hold weighted (non-integer) counts.
suppressMessages(library(irrCAC))
fns <- c(krippen.alpha = "krippen.alpha.dist", fleiss.kappa = "fleiss.kappa.dist",
         gwet.ac1 = "gwet.ac1.dist", bp.coeff = "bp.coeff.dist", pa.coeff = "pa.coeff.dist")
out <- c()
for (f in sort(list.files("tables", pattern = "\\.csv$"))) {
  t <- read.csv(file.path("tables", f), check.names = FALSE)
  nums <- suppressWarnings(as.numeric(names(t)))
  categ <- if (all(!is.na(nums))) nums else NULL
  for (fn in names(fns)) for (w in c("unweighted", "linear", "quadratic", "ordinal")) {
    est <- do.call(fns[[fn]], list(t, weights = w, categ = categ))
    sig <- function(x) formatC(x, digits = 17, format = "g")
    out <- c(out, sprintf('{"table": "%s", "function": "%s", "weights": "%s", "coeff": %s, "stderr": %s, "pa": %s, "pe": %s}',
                          sub("\\.csv$", "", f), fns[[fn]], w, sig(est$coeff), sig(est$stderr), sig(est$pa), sig(est$pe)))
  }
}
cat("[\n", paste(out, collapse = ",\n"), "\n]\n", sep = "")
cat(sprintf("irrCAC %s, %s\n", packageVersion("irrCAC"), R.version.string), file = stderr())
