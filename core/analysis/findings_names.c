/*
 * findings_names.c - the findings' names, titles, fixes and default
 * thresholds (findings.h). The fixes are one line each; docs/findings.md
 * gives the source of each (the PyTorch documentation and tuning guide,
 * NVIDIA's performance guides, HTA, the Perfetto guide). The defaults are
 * those of contrib/rules/default.yaml's `findings:` section, chosen on the
 * shared traces (docs/findings.md says which numbers each separates).
 */
#include "findings.h"

#include <string.h>

static const struct {
	const char *name, *title, *fix;
} info[TG_FINDING_COUNT] = {
	[TG_FINDING_HOST_SYNC] = {"host-sync", "host sync",
                                  "keep values on the GPU: remove or defer the .item() / .cpu() / .tolist() / "
                                  "torch.cuda.synchronize() (log every N steps, copy with non_blocking=True)"},
	[TG_FINDING_DATALOADER_STALL] = {"dataloader-stall", "DataLoader stall",
                                         "load in worker processes: DataLoader(num_workers=N, pin_memory=True, "
                                         "persistent_workers=True, prefetch_factor=2 or more)"},
	[TG_FINDING_LAUNCH_BOUND] =
		{"launch-bound", "launch-bound GPU",
                 "launch less often: CUDA graphs (torch.compile(mode=\"reduce-overhead\") or "
                 "torch.cuda.CUDAGraph), fuse small ops with torch.compile, or more work per kernel "
                 "(larger batch)"},
	[TG_FINDING_IDLE_GAP] = {"idle-gap", "GPU idle gap",
                                 "see what the host runs in the gap (the evidence names it) and take it off the "
                                 "step's path: overlap it, make it asynchronous or do it less often"},
	[TG_FINDING_FIRST_STEP_SLOW] =
		{"first-step-slow", "slow first step",
                 "warm up before measuring: torch.profiler.schedule(wait=1, warmup=2 or more), "
                 "and keep lazy initialisation, autotuning and compilation out of the timed steps"},
	[TG_FINDING_PAGEABLE_MEMCPY] = {"pageable-memcpy", "pageable copy",
                                        "pin the host memory (DataLoader(pin_memory=True) or tensor.pin_memory()) and "
                                        "copy with .to(device, non_blocking=True)"},
	[TG_FINDING_ATTENTION_BACKEND] = {"attention-backend", "attention on the math backend",
                                          "attention ran the math backend: check dropout / mask / dtype (fp16, bf16) / "
                                          "head dim for flash; sdpa_kernel(SDPBackend.FLASH_ATTENTION) says why not"},
	[TG_FINDING_GEMM_ALIGNMENT] = {"gemm-alignment", "misaligned GEMM",
                                       "pad M, N and K to a multiple of 16 bytes (8 elements in bf16/fp16, 4 in "
                                       "fp32/tf32, 16 in fp8), e.g. a width of 3072 rather than 3076"},
	[TG_FINDING_LOW_EFFICIENCY] = {"low-efficiency", "op far under its roofline",
                                       "check the op's shapes (small or odd sizes), dtype (bf16/fp16 tensor cores) "
                                       "and layout (contiguous inputs); fuse memory-bound ops (torch.compile)"},
	[TG_FINDING_NO_COMM_OVERLAP] = {"no-comm-overlap", "communication not overlapped",
                                        "overlap communication with compute: DDP bucket_cap_mb smaller / "
                                        "find_unused_parameters=False / gradient_as_bucket_view=True; FSDP "
                                        "backward_prefetch and forward_prefetch"},
	[TG_FINDING_STRAGGLER] = {"straggler", "straggler rank",
                                  "find what delays that rank before its collectives (compare its trace with another "
                                  "rank's: data loading, host syncs, a slower GPU or link) and balance the work"},
	[TG_FINDING_ALL_RANKS_IDLE] = {"all-ranks-idle", "all ranks idle",
                                       "every GPU waits at once on work outside them (checkpointing, evaluation, "
                                       "logging, I/O): make it asynchronous or less frequent"},
};

const char *tg_finding_name(tg_finding_id id)
{
	return (int)id >= 0 && id < TG_FINDING_COUNT ? info[id].name : NULL;
}

int tg_finding_parse(const char *name)
{
	for (int i = 0; name && i < TG_FINDING_COUNT; i++)
		if (!strcmp(info[i].name, name))
			return i;
	return -1;
}

const char *tg_finding_title(tg_finding_id id)
{
	return (int)id >= 0 && id < TG_FINDING_COUNT ? info[id].title : "";
}

const char *tg_finding_fix(tg_finding_id id)
{
	return (int)id >= 0 && id < TG_FINDING_COUNT ? info[id].fix : "";
}

int tg_finding_across_ranks(tg_finding_id id)
{
	return id == TG_FINDING_STRAGGLER || id == TG_FINDING_ALL_RANKS_IDLE;
}

const char *tg_finding_status_name(tg_finding_status s)
{
	switch (s) {
	case TG_FINDING_OK: return "ok";
	case TG_FINDING_FIRED: return "fired";
	case TG_FINDING_NOT_EVALUATED: return "not evaluated";
	}
	return "?";
}

const char *tg_finding_change_name(tg_finding_change c)
{
	switch (c) {
	case TG_FINDING_NEW: return "new";
	case TG_FINDING_WORSE: return "worse";
	case TG_FINDING_GONE: return "gone";
	case TG_FINDING_BETTER: return "better";
	case TG_FINDING_SAME: return "same";
	}
	return "?";
}

void tg_findings_opts_default(tg_findings_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < TG_FINDING_COUNT; i++)
		o->limits[i].enabled = 1;
	o->limits[TG_FINDING_HOST_SYNC].min_cost = 1;
	o->limits[TG_FINDING_DATALOADER_STALL].min_cost = 5;
	o->limits[TG_FINDING_LAUNCH_BOUND].min_cost = 20;
	o->limits[TG_FINDING_LAUNCH_BOUND].param = 200e3; /* gaps up to 200 us */
	o->limits[TG_FINDING_IDLE_GAP].min_cost = 10;
	o->limits[TG_FINDING_IDLE_GAP].param = 1e6; /* gaps of 1 ms or more */
	o->limits[TG_FINDING_FIRST_STEP_SLOW].min_cost = 0;
	o->limits[TG_FINDING_FIRST_STEP_SLOW].param = 1.5; /* first step >= 1.5 x the median */
	o->limits[TG_FINDING_PAGEABLE_MEMCPY].min_cost = 0.5;
	o->limits[TG_FINDING_ATTENTION_BACKEND].min_cost = 1;
	o->limits[TG_FINDING_GEMM_ALIGNMENT].min_cost = 1;
	o->limits[TG_FINDING_GEMM_ALIGNMENT].param = 16; /* bytes */
	o->limits[TG_FINDING_LOW_EFFICIENCY].min_cost = 5;
	o->limits[TG_FINDING_LOW_EFFICIENCY].param = 20; /* percent of the roofline */
	o->limits[TG_FINDING_NO_COMM_OVERLAP].min_cost = 5;
	o->limits[TG_FINDING_STRAGGLER].min_cost = 2;
	o->limits[TG_FINDING_STRAGGLER].param = 50; /* last at more than half of the collectives */
	o->limits[TG_FINDING_ALL_RANKS_IDLE].min_cost = 5;
	o->limits[TG_FINDING_ALL_RANKS_IDLE].param = 1e6; /* stretches of 1 ms or more */
	o->worse_above = 25;
}
