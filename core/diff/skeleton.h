/*
 * skeleton.h - the op skeleton of one trace: what the tree diff
 * (tree_diff.h) reads of an event tree, and nothing more. Each event a
 * view of the diff may keep (cpu_ops, runtime and driver calls, device
 * events; python_function and user_annotation events when asked for) with
 * the nearest ancestor among them, its kind, name, start and duration, and
 * for a device event whether TraceLens would link it to its launch.
 *
 * A skeleton is built from a tree (borrowing the trace's names), or
 * adopted from arrays that a stored run gave back (rundata.h: owning its
 * names), so that two runs' trees can be aligned again without reading
 * their traces. Event indices are those of the trace: a skeleton's events
 * are the same numbers the measure's kernel records (measure.h) name.
 *
 * 16 bytes a kept node (tg_skel_node): its start is held as an offset
 * from the least start of its block of 64 nodes (tg_skeleton_ts), its
 * event as a bit an event of the trace, ranked (tg_skeleton_event,
 * tg_skeleton_find); plus 8 bytes a node for the nodes' order by start
 * when it is held (an adopted skeleton's).
 */
#ifndef TG_SKELETON_H
#define TG_SKELETON_H

#include "../../util/atoms.h"
#include "../tree/tree.h"

typedef struct tg_skeleton tg_skeleton;

/* A node's dur when its duration is 2^32 - 1 ns (4.29 s) or more: the
 * skeleton holds it whole (tg_skeleton_dur), as a trace holds its events'. */
#define TG_SKEL_WIDE_DUR UINT32_MAX
/* Names a skeleton can number (a node's name has 27 bits): more is TG_ELIMIT. */
#define TG_SKEL_MAX_NAMES ((1u << 27) - 1)

/* A node's ts when its start is 2^32 - 1 ns or more after its block's
 * base: the skeleton holds it whole (tg_skeleton_ts). */
#define TG_SKEL_WIDE_TS UINT32_MAX

/* 16 bytes (24 with the start whole and the event; 32 with a 64-bit
 * duration and byte-wide kind and link): the run data of a trace holds one
 * a kept event, two at a judgement. Read the start and the event through
 * tg_skeleton_ts and tg_skeleton_event. */
typedef struct tg_skel_node {
	uint32_t ts;         /* ns after the least start of its block of 64 nodes; TG_SKEL_WIDE_TS: tg_skeleton_ts */
	uint32_t dur;        /* ns; TG_SKEL_WIDE_DUR: read it with tg_skeleton_dur */
	uint32_t parent;     /* index into the nodes of the nearest ancestor in the skeleton, TG_NONE */
	uint32_t name : 27;  /* atom of tg_skeleton_atoms(), below TG_SKEL_MAX_NAMES */
	uint32_t kind : 4;   /* tg_kind */
	uint32_t linked : 1; /* a device event TraceLens links (tg_tree_linked_like_tracelens) */
} tg_skel_node;

/* A node as a stored skeleton gives it back (tg_skeleton_adopt). */
typedef struct tg_skel_entry {
	int64_t ts, dur;   /* ns */
	uint32_t event;    /* the event's index in its trace */
	uint32_t parent;   /* index into the entries, TG_NONE */
	uint32_t name;     /* atom of the names adopted */
	uint8_t kind, linked;
} tg_skel_entry;

_Static_assert(TG_KIND_COUNT <= 16, "a tg_kind fits tg_skel_node.kind's 4 bits");

/* What a skeleton holds besides cpu_ops, launches and device events. */
enum { TG_SKEL_PYTHON = 1, TG_SKEL_ANNOTATIONS = 2 };

/* The skeleton of tree, with python_function (TG_SKEL_PYTHON) and
 * user_annotation (TG_SKEL_ANNOTATIONS) events when `with` says so,
 * without its order by start (tg_skeleton_by_start gives NULL: a view
 * sorts the nodes when it is built, so that run data held between traces
 * does not hold it). The tree and its trace must outlive it (names are
 * the trace's atoms). *out is the caller's (tg_skeleton_free). 0,
 * TG_ENOMEM or TG_ELIMIT (more than 2^32 - 2 events). */
int tg_skeleton_build(tg_skeleton **out, const tg_tree *tree, unsigned with);

/* A skeleton of the n entries (sorted by event, each below nevents;
 * parents earlier or later, never a cycle; names atoms of `atoms`, below
 * TG_SKEL_MAX_NAMES; kinds among those a skeleton holds, as `with` says;
 * durations not negative; linked 0 or 1), taking both: on success *out owns
 * atoms, and the entries are freed either way (the nodes are made from
 * them). what names the data in the message. 0, TG_EFORMAT (what is wrong,
 * and the node) or TG_ENOMEM. */
int tg_skeleton_adopt(tg_skeleton **out, tg_skel_entry *in, size_t n, uint32_t nevents, tg_atoms *atoms,
                      unsigned with, const char *what);

/* Gives s names of its own: each node's name atom a becomes map[a], an
 * atom of names (which s takes); the nodes and their order stay. For run
 * data that outlives its trace (rundata.h: tg_rundata_detach). */
void tg_skeleton_rename(tg_skeleton *s, tg_atoms *names, const uint32_t *map);

/* Frees s (and what it owns). NULL is a no-op. */
void tg_skeleton_free(tg_skeleton *s);

/* The nodes, by event; owned by s. */
const tg_skel_node *tg_skeleton_nodes(const tg_skeleton *s, size_t *n);

/* Every node index ordered by (start, node index): sorted once when the
 * skeleton is adopted (a stored skeleton serves many views); owned by s;
 * NULL for a skeleton built from a tree (tg_skeleton_order_into). */
const uint32_t *tg_skeleton_by_start(const tg_skeleton *s);

/* Its inverse: the place of each node in tg_skeleton_by_start; owned by
 * s; NULL likewise. */
const uint32_t *tg_skeleton_start_rank(const tg_skeleton *s);

/* The order of tg_skeleton_by_start and its inverse into the caller's
 * arrays (each as long as the nodes; start_rank NULL: not wanted), sorted
 * now (a linear radix sort). 0 or TG_ENOMEM (its scratch). */
int tg_skeleton_order_into(uint32_t *by_start, uint32_t *start_rank, const tg_skeleton *s);

/* Sorts the node indices idx[0..n) of s by (start, index), as
 * tg_skeleton_by_start orders them, without an order over every node: a
 * radix sort of their starts packed with their indices (keys: the
 * caller's scratch of n), or a comparison sort when the starts are too
 * far apart to pack. 0 or TG_ENOMEM (the radix sort's scratch). */
int tg_skeleton_sort_nodes(const tg_skeleton *s, uint32_t *idx, size_t n, uint64_t *keys);

/* The start of node i in ns (its block's base and its offset, or the
 * whole one when wide). */
int64_t tg_skeleton_ts(const tg_skeleton *s, size_t i);

/* The event of node i (its index in the trace): the i-th event the
 * skeleton holds, selected from their bits. */
uint32_t tg_skeleton_event(const tg_skeleton *s, size_t i);

/* The duration of node i in ns (its dur, or the whole one when wide). */
int64_t tg_skeleton_dur(const tg_skeleton *s, size_t i);

/* Events of the trace (node events are below it). */
uint32_t tg_skeleton_events(const tg_skeleton *s);

/* TG_SKEL_PYTHON and TG_SKEL_ANNOTATIONS as built. */
unsigned tg_skeleton_with(const tg_skeleton *s);

/* The names (the trace's atoms, or the skeleton's own); borrowed. */
const tg_atoms *tg_skeleton_atoms(const tg_skeleton *s);

/* The node of event ev, or TG_NONE (its bit, ranked). */
uint32_t tg_skeleton_find(const tg_skeleton *s, uint32_t ev);

/* Holds the nodes of s in a bit stream of about 4 bytes a node instead
 * of 16 (skeleton_hold.c: each field coded from what the nodes before it
 * predict), for run data that waits while another trace is read (rundata.h:
 * tg_rundata_compact). Until tg_skeleton_expand, s has no nodes to read:
 * tg_skeleton_nodes gives NULL, and tg_skeleton_ts, _dur and _sort_nodes
 * must not be called; its events, names and counts read as before. A
 * compact skeleton is left as it is. 0 or TG_ENOMEM (s unchanged). */
int tg_skeleton_compact(tg_skeleton *s);

/* The nodes of a compact s given back, the same bytes as before
 * tg_skeleton_compact, and the stream freed; a skeleton that is not
 * compact is left as it is. 0 or TG_ENOMEM (s still compact). */
int tg_skeleton_expand(tg_skeleton *s);

/* 1 while s is compact (tg_skeleton_compact), else 0. */
int tg_skeleton_compacted(const tg_skeleton *s);

/* Bytes the nodes of s take: 16 a node, or the stream's while compact
 * (what is beside them, the blocks' bases and the events' bits, about 0.4
 * bytes a node, is not counted). */
uint64_t tg_skeleton_mem_bytes(const tg_skeleton *s);

#endif
