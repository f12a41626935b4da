/*
 * tree_helper.h - handing a job to a parked helper thread (tree_helper.c;
 * tree.h starts and frees one). Private to core/tree.
 */
#ifndef TG_TREE_HELPER_H
#define TG_TREE_HELPER_H

#include "tree.h"

/* Runs fn(arg) on h's thread; h is its thread's from then on (it frees h). */
void tg_tree_helper_run(tg_tree_helper *h, void *(*fn)(void *), void *arg);

#endif
