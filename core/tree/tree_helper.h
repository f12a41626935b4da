/*
 * tree_helper.h - handing a job to a parked helper thread (tree_helper.c;
 * tree.h starts and frees one). Private to core/tree.
 */
#ifndef TG_TREE_HELPER_H
#define TG_TREE_HELPER_H

#include "tree.h"

/* Runs fn(arg) on a parked thread that nobody joins (h says one was
 * parked; h is taken). 0, or an errno: no thread could be had, and the
 * caller does fn's work itself. */
int tg_tree_helper_run(tg_tree_helper *h, void *(*fn)(void *), void *arg);

#endif
