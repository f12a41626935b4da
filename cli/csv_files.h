/*
 * csv_files.h - the report's csv output: one file per table in a folder,
 * written on two threads (cli/csv_files.c).
 */
#ifndef TG_CLI_CSV_FILES_H
#define TG_CLI_CSV_FILES_H

#include "../core/analysis/table.h"

#include <stddef.h>

/* Writes tables[0..n) as DIR/<table name>.csv, each complete or failed,
 * two threads taking the tables in turn. The tables are borrowed (read
 * only). Returns 0, or -1 after printing one line: the first failure in
 * the tables' order ("DIR/NAME.csv: cannot write: REASON"), as writing
 * them one after the other would print it; the files before it are
 * written, those after it may be. */
int tg_cli_csv_files_write(const tg_table *const *tables, size_t n, const char *dir);

#endif
