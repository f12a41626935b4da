/*
 * history_index.h - the published history's layout and its index page
 * (history_index.c): where each branch's page lives, and one html page that
 * lists every repository's branches and workloads with their latest run,
 * its verdict and the change points of their series.
 *
 *   index.html
 *   <owner>/<repo>/<branch file>.html     tg_history_page_file(branch)
 *
 * Branch names are anyone's (a pull request's branch): a page's file name
 * is made of A-Z a-z 0-9 . _ - alone, every other byte written ~XX (hex),
 * so that it is one path segment, the same in a URL as on disk, and never
 * ".", ".." or hidden; a long name is cut and made unique with its hash.
 */
#ifndef TG_HISTORY_INDEX_H
#define TG_HISTORY_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest page file name tg_history_page_file writes, ".html" and
 * the NUL included. */
#define TG_HISTORY_PAGE_FILE_MAX 200

/* The file name of branch's page ("main.html", "feat~2Fx.html") into buf
 * (TG_HISTORY_PAGE_FILE_MAX bytes). Different branches always get
 * different names. */
void tg_history_page_file(char buf[TG_HISTORY_PAGE_FILE_MAX], const char *branch);

/* One line of the index: a branch and workload of a repository. Strings
 * are borrowed. */
typedef struct tg_history_index_row {
	const char *repo;      /* "owner/repo" */
	const char *branch;
	const char *workload;
	int64_t runs;          /* its runs in the history */
	const char *commit;    /* its last run's (the page's last) commit, */
	int64_t run_time;      /* time (Unix s), */
	const char *verdict;   /* verdict (NULL: none), */
	int64_t pr;            /* pull request (0: none) */
	size_t nchanges;       /* change points in its series (on its page) */
	const char *change;    /* the latest of them in words, NULL when none */
} tg_history_index_row;

/* Writes the index page of the n rows (grouped by repository in the order
 * given) to f: a table per repository, each branch linked to its page
 * (<owner>/<repo>/<file>), the verdict coloured, the time of writing
 * (generated, Unix s) at the foot. Every name is escaped. Returns 0 or
 * TG_EIO. */
int tg_history_index_write(FILE *f, const tg_history_index_row *rows, size_t n, int64_t generated);

#endif
