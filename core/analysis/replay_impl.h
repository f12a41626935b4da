/*
 * replay_impl.h - what the replay files share (replay_select.c finds the
 * invocations, replay_spec.c decides how one is rebuilt, replay_script.c
 * writes its script). Not for other modules.
 */
#ifndef TG_REPLAY_IMPL_H
#define TG_REPLAY_IMPL_H

#include "replay.h"
#include "../models/shape.h"

enum tg_replay_in_kind {
	TG_REPLAY_IN_NONE = 0, /* not recorded: None, or the schema's default */
	TG_REPLAY_IN_TENSOR,
	TG_REPLAY_IN_VALUE
};

/* One input of an invocation, as the script rebuilds it. */
typedef struct tg_replay_input {
	uint8_t kind;       /* tg_replay_in_kind */
	uint8_t nd;         /* tensor: dims */
	uint8_t has_stride; /* tensor: 0 when the trace records no strides (contiguous) */
	uint16_t scale_mask; /* tensor: bit i set when --scale may reduce dim i */
	uint8_t used;       /* 0: the script does not build it (attention's outputs) */
	const char *dtype;  /* tensor: the torch attribute (static): "bfloat16" */
	int64_t shape[TG_SHAPE_MAX_DIMS], stride[TG_SHAPE_MAX_DIMS];
	char value[160];    /* value: a Python literal written by tracegate ("[768]", "1e-05", "True") */
} tg_replay_input;

/* How one invocation is rebuilt and called. */
typedef struct tg_replay_spec {
	tg_replay_family family;
	size_t n;
	tg_replay_input in[TG_SHAPE_MAX_ITEMS];
	/* TG_REPLAY_SDPA */
	const char *backend; /* "flash", "efficient", "cudnn", "math" (static) */
	int backward;
	int q, k, v, mask;   /* input indices; mask -1 when none */
	char dropout[40], causal[8], scale[40]; /* Python literals; scale "None" when not given */
} tg_replay_spec;

/* Decides how event ev (a cpu_op of tree's trace) is rebuilt: *out, or a
 * reason (why it cannot be replayed, one line) in reason and -1. Pure. */
int tg_replay_spec_build(tg_replay_spec *out, char *reason, size_t cap, const tg_tree *tree, uint32_t ev);

/* The backend ("flash", "efficient", "cudnn", "math", "default") of an
 * aten::scaled_dot_product_attention event, from the op the trace shows
 * under it; NULL for any other op. Static string. */
const char *tg_replay_sdpa_backend(const tg_tree *tree, uint32_t ev);

/* s for a message: printable ASCII but backslash, the rest as '?', at
 * most 60 bytes ("..." when cut); buf of cap bytes. */
void tg_replay_plain(char *buf, size_t cap, const char *s);

/* The runner every script ends with: core/analysis/replay_runner.py, made into C
 * by core/analysis/replay_runner_gen.awk. */
extern const char tg_replay_runner_py[];

#endif
