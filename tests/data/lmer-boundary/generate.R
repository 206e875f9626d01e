# Boundary cases of psych::ICC(x, missing = FALSE, lmer = TRUE): designs where lme4's REML fit puts
# a variance component at 0 (no rater effect, no object effect), with missing ratings.
# Same layout as validation/r-reference/lmer (generate.R there), plus lme4's REML criterion
# (REMLcrit = -2 restricted log-likelihood) and theta (relative standard deviations) of the fit.
# Usage: Rscript generate.R OUTDIR SEED
suppressMessages({library(psych); library(lme4); library(jsonlite)})
a <- commandArgs(TRUE); out <- a[1]; seed <- as.integer(a[2])
dir.create(file.path(out, "cases"), recursive = TRUE, showWarnings = FALSE)
dir.create(file.path(out, "expected"), recursive = TRUE, showWarnings = FALSE)
set.seed(seed)
put <- function(name, m) write.csv(m, file.path(out, "cases", paste0(name, ".csv")), row.names = FALSE, na = "")
drop <- function(m, k) { m[sample(length(m), k)] <- NA; m }
design <- function(n, k, sd_obj, sd_rater, sd_err, mean = 10) {
  matrix(rnorm(n, 0, sd_obj), n, k) + matrix(rnorm(k, 0, sd_rater), n, k, byrow = TRUE) +
    matrix(rnorm(n * k, 0, sd_err), n, k) + mean
}
cases <- list(
  b_30x4_norater  = drop(design(30, 4, 2, 0, 1), 15),     # rater variance estimated at 0
  b_40x3_noobject = drop(design(40, 3, 0, 1, 1), 12),     # object variance estimated at 0
  b_25x5_both     = drop(design(25, 5, 0, 0, 1), 20),     # both (pure noise)
  b_20x2_norater  = drop(design(20, 2, 1, 0, 1), 6)
)
res <- list()
for (nm in names(cases)) {
  m <- cases[[nm]]; put(nm, m)
  p <- suppressWarnings(suppressMessages(ICC(m, missing = FALSE, lmer = TRUE)))
  r <- p$results
  fit <- p$summary
  res[[nm]] <- list(
    n_obs = p$n.obs, n_judge = p$n.judge,
    variance = list(ID = p$lme[["variance"]][1], Items = p$lme[["variance"]][2], Residual = p$lme[["variance"]][3]),
    reml_criterion = unname(lme4::REMLcrit(fit)), theta = as.list(lme4::getME(fit, "theta")),
    results = lapply(seq_len(nrow(r)), function(i) list(type = as.character(r$type[i]), ICC = r$ICC[i], F = r$F[i],
      df1 = r$df1[i], df2 = r$df2[i], p = r$p[i], lower = r$`lower bound`[i], upper = r$`upper bound`[i])))
}
writeLines(toJSON(res, digits = NA, auto_unbox = TRUE, na = "null", null = "null", pretty = TRUE),
           file.path(out, "expected", "psych_ICC_lmer.json"))
writeLines(c(R.version.string, paste("psych", packageVersion("psych")), paste("lme4", packageVersion("lme4")),
             paste("seed", seed), "call: psych::ICC(x, missing = FALSE, lmer = TRUE); x = the case matrix (NA = missing)"),
           file.path(out, "VERSIONS.txt"))
