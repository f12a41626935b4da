/*
 * replay.h - event replay (docs/replay.md): the distinct invocations of one
 * op in a trace, and for each a self-contained PyTorch script that rebuilds
 * its inputs (shapes, dtypes, strides, concrete values), calls the op the way
 * the trace did, times it and prints that time next to the trace's. What
 * TraceLens's EventReplay does, as a file to hand to a kernel team or run on
 * other hardware, with no tracegate and no model needed to run it.
 *
 * An invocation is distinct by (op, Input Dims, Input type, Input Strides,
 * Concrete Inputs) and, for aten::scaled_dot_product_attention, the backend
 * op the trace shows under it. What cannot be replayed is said, one reason
 * per invocation: an autograd node, an op outside ATen, a list of tensors
 * (the profiler records no shapes for them), a Scalar without its value, a
 * trace recorded without record_shapes...
 *
 * Everything written into a script that comes from the trace goes through
 * strict validation (op names are identifiers, dtypes come from a fixed
 * table, values are parsed as numbers or booleans and printed by tracegate)
 * or Python string quoting: a hostile trace cannot inject code.
 */
#ifndef TG_REPLAY_H
#define TG_REPLAY_H

#include "../tree/tree.h"

#include <stddef.h>
#include <stdint.h>

/* What kind of op an invocation is, which decides how the script calls it
 * and which sizes --scale may reduce. */
typedef enum tg_replay_family {
	TG_REPLAY_REFUSED = 0, /* cannot be replayed: tg_replay_call.reason says why */
	TG_REPLAY_GEMM,        /* mm, addmm, bmm, baddbmm, matmul, linear */
	TG_REPLAY_SDPA,        /* scaled_dot_product_attention and its _scaled_dot_product_* backends */
	TG_REPLAY_CONV,        /* convolution and its cuDNN/MIOpen entries, forward and backward */
	TG_REPLAY_NORM,        /* layer, RMS, batch, group and instance norms */
	TG_REPLAY_SOFTMAX,     /* (log_)softmax, forward and backward */
	TG_REPLAY_ELEMENTWISE, /* unary and binary pointwise ops */
	TG_REPLAY_ATEN,        /* any other ATen op: called by its schema, sizes as recorded */
	TG_REPLAY_FAMILY_COUNT
} tg_replay_family;

/* "GEMM", "SDPA", ... (static strings). */
const char *tg_replay_family_name(tg_replay_family f);

/* One distinct invocation of the op. */
typedef struct tg_replay_call {
	uint32_t first;          /* its first invocation (an event of the trace) */
	uint64_t calls;          /* invocations */
	uint64_t gpu_calls;      /* of them, those with device work under them */
	int64_t gpu_ns;          /* device time under the invocations (kernels, memcpys, memsets), summed */
	int64_t cpu_ns;          /* their host durations, summed */
	const char *signature;   /* "dims=(...) types=(...) strides=(...) concrete=(...)" as Python prints
	                            them (backend=... for the attention entry point); owned by the set */
	tg_replay_family family;
	char reason[256];        /* why it cannot be replayed; "" when it can */
} tg_replay_call;

typedef struct tg_replay_set tg_replay_set;

/* The distinct invocations of the cpu_op named op in tree's trace, largest
 * device time first (then host time, then first seen): *out owns them
 * (tg_replay_set_free). match, when not NULL, is a POSIX extended regular
 * expression an invocation's signature must match. Returns 0 (perhaps with
 * no invocation: tg_replay_set_ops says how many the op had before match);
 * TG_ENOTFOUND when the trace has no cpu_op of that name (the message names
 * the ops whose names contain op's last part, when there are); TG_EINVAL
 * for a bad regular expression; TG_ENOMEM. */
int tg_replay_find(tg_replay_set **out, const tg_tree *tree, const char *op, const char *match);

/* The invocations, *n of them (borrowed from s). */
const tg_replay_call *tg_replay_calls(const tg_replay_set *s, size_t *n);

/* Distinct invocations of the op before --match filtered them. */
size_t tg_replay_set_ops(const tg_replay_set *s);

void tg_replay_set_free(tg_replay_set *s);

/* The Python script that replays call (not refused) of the op in tree's
 * trace: *out (NUL-terminated, *len bytes) is the caller's, freed with
 * free(). trace_name is the trace as the script names it (any bytes: it is
 * quoted); index is the invocation's place in the listing (1-based), of
 * count. Returns 0, TG_EINVAL for a refused call, or TG_ENOMEM. */
int tg_replay_script(char **out, size_t *len, const tg_tree *tree, const tg_replay_call *call, const char *trace_name,
                     size_t index, size_t count);

/* The op to replay for op: the aten::_scaled_dot_product_* entry above a
 * kernel-level attention op (aten::_flash_attention_backward ->
 * aten::_scaled_dot_product_flash_attention_backward), which replay
 * refuses; else op itself. A static string or op. */
const char *tg_replay_entry_of(const char *op);

/* The file name of the script of call index of op ("aten_mm_3.py"): op's
 * name with every character outside [A-Za-z0-9] as '_', at most 80 of
 * them. buf of cap bytes, always NUL-terminated. */
void tg_replay_file_name(char *buf, size_t cap, const char *op, size_t index);

#endif
