/*
 * path_suffix.h - the shortest distinguishing suffix of each of a set of
 * paths, in whole components: ../traces/base_r1/rank0.pt.trace.json.gz and
 * ../traces/dropout2_r1/rank0.pt.trace.json.gz read as
 * base_r1/rank0.pt.trace.json.gz and dropout2_r1/rank0.pt.trace.json.gz, so
 * that a table naming both sides' files tells them apart where base names
 * alone would not. Nothing is allocated: the suffixes point into the paths.
 */
#ifndef TG_PATH_SUFFIX_H
#define TG_PATH_SUFFIX_H

#include <stddef.h>

/* Sets out[i] to the shortest suffix of paths[i] that starts at a
 * component (after a '/', or the whole path) and that no other path of the
 * n ends with at that depth: the base name when the base names all differ.
 * Equal paths (the same file on both sides) count as one. out[i] points
 * into paths[i] (borrowed, valid as long as it is). */
void tg_path_unique_suffixes(const char **out, const char *const *paths, size_t n);

#endif
