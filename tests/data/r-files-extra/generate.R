# More files written by base R, beside ../shared/r-files (same layout, same manifest fields):
# the other ways R users save prediction, rating and label matrices.
# Usage: Rscript generate.R OUTDIR     (OUTDIR = this folder; R 4.2.2, utils only + jsonlite)
# Writes OUTDIR/files/* and OUTDIR/manifest.json: for every file, the writer call, the reader call
# that gets the data back in R, and R's view of it (row names, column names, values, NA positions).
suppressMessages(library(jsonlite))
a <- commandArgs(TRUE); out <- a[1]
dir.create(file.path(out, "files"), recursive = TRUE, showWarnings = FALSE)
set.seed(22)
pred <- matrix(round(rnorm(7 * 4, 5, 1), 6), 7, 4)                 # 7 objects x 4 refits
pred_na <- pred; pred_na[c(2, 12, 20)] <- NA
lab <- matrix(sample(c("high risk", "low risk", "none"), 6 * 3, TRUE), 6, 3)   # labels with spaces
lab_na <- lab; lab_na[c(4, 11)] <- NA
odd <- data.frame(a = round(runif(5), 6), b = round(runif(5), 6),
                  row.names = c("plot \"A\"", "plot, B", "plot;C", "plot D", "plot\tE"))
wide <- data.frame(x1 = round(rnorm(5), 6), x2 = round(rnorm(5), 6)); names(wide) <- c("1", "2")
ints <- data.frame(r1 = c(1L, NA, 3L, 2L), r2 = c(2L, 2L, NA, 1L))      # integer labels with NA

entries <- list()
w <- function(file, obj, writer, reader, ...) {
  path <- file.path(out, "files", file)
  writer(obj, path, ...)
  back <- eval(parse(text = sprintf(reader, shQuote(path))))
  entries[[file]] <<- list(
    writer = paste(deparse(sys.call()), collapse = " "),
    reader = sprintf(reader, "FILE"),
    rownames = rownames(back), colnames = colnames(back),
    values = lapply(back, function(col) if (is.factor(col)) as.character(col) else col),
    na = lapply(back, function(col) which(is.na(col)) - 1))
}
wcsv <- function(x, p, ...) write.csv(x, p, ...)
wcsv2 <- function(x, p, ...) write.csv2(x, p, ...)
wtab <- function(x, p, ...) write.table(x, p, ...)
# a byte-order mark before R's output (what Excel's "CSV UTF-8" writes; R 4.2 writes none itself)
wbom <- function(x, p, ...) {
  write.table(x, p, ...)
  body <- readBin(p, "raw", file.info(p)$size)
  writeBin(c(as.raw(c(0xef, 0xbb, 0xbf)), body), p)
}
# write.table(quote = FALSE): a header one field short, bare row names 1..n
w("pred_writetable_noquote.txt", pred, wtab, "read.table(%s, header = TRUE)", quote = FALSE)
w("pred_writetable_noquote_comma.csv", pred, wtab, "read.table(%s, sep = ',', header = TRUE)",
  quote = FALSE, sep = ",")
# write.csv(quote = FALSE): an empty first name, bare row names
w("pred_writecsv_noquote.csv", pred_na, wcsv, "read.csv(%s, row.names = 1)", quote = FALSE)
# a byte-order mark (Excel's "CSV UTF-8"), with and without a header
w("pred_writecsv_bom.csv", pred, wbom, "read.csv(%s, row.names = 1, fileEncoding = 'UTF-8-BOM')",
  sep = ",", col.names = NA)
w("pred_noheader_bom.csv", pred, wbom, "read.table(%s, sep = ',', fileEncoding = 'UTF-8-BOM')",
  sep = ",", row.names = FALSE, col.names = FALSE)
# Windows line ends
w("pred_writecsv_crlf.csv", pred_na, wcsv, "read.csv(%s, row.names = 1)", eol = "\r\n")
# write.csv2 with NA as an empty cell
w("pred_na_empty_writecsv2.csv", pred_na, wcsv2, "read.csv2(%s, row.names = 1)", na = "")
# tab-separated without header or row names (read.delim's files)
w("pred_noheader_tab.tsv", pred, wtab, "read.table(%s, sep = '\\t')", sep = "\t",
  row.names = FALSE, col.names = FALSE, quote = FALSE)
# write.table(col.names = NA): write.csv's layout with another separator
w("pred_writetable_colnames_na.tsv", pred, wtab, "read.table(%s, sep = '\\t', header = TRUE, row.names = 1)",
  sep = "\t", col.names = NA)
# labels with spaces, quoted, separated by spaces (write.table's default)
w("labels_spaces_writetable.txt", lab_na, wtab, "read.table(%s, header = TRUE)")
w("labels_spaces_writecsv.csv", lab_na, wcsv, "read.csv(%s, row.names = 1)")
# row names holding quotes, commas, semicolons and tabs (quotes doubled, as write.csv does)
w("odd_rownames_writecsv.csv", odd, wcsv, "read.csv(%s, row.names = 1)")
w("odd_rownames_writecsv2.csv", odd, wcsv2, "read.csv2(%s, row.names = 1)")
# numeric column names, quoted: a header, not data
w("numeric_colnames_writecsv.csv", wide, wcsv, "read.csv(%s, check.names = FALSE)",
  row.names = FALSE)
# integer labels with missing values (R keeps them integers)
w("int_labels_na_writecsv.csv", ints, wcsv, "read.csv(%s)", row.names = FALSE)
writeLines(toJSON(entries, digits = NA, auto_unbox = FALSE, na = "null", null = "null", pretty = TRUE),
           file.path(out, "manifest.json"))
writeLines(c(R.version.string, "files written by base R's write.csv / write.csv2 / write.table (utils)"),
           file.path(out, "VERSIONS.txt"))
