/*
 * measure_units.c - a measure's units (measure.h's tg_unit): one per
 * profiled step of a trace, or one for the whole trace without steps,
 * each with its GPU timeline (busy, idle, exposed communication and
 * copies), its host syncs and the trace's peak memory.
 *
 * The caller (measure.c's add_trace) hands the trace's device events,
 * found in its one pass over the events; they are grouped here by step
 * (a counting sort: the step of each event read once, in event order),
 * so that each step's timeline reads its own events: a pass over the
 * events a step would be quadratic in the trace, and a pass over all of
 * them to group a second time costs what the caches do not hold (64 MB of
 * events at a gigabyte of JSON).
 */
#include "measure_impl.h"
#include "../analysis/host_syncs.h"
#include "../analysis/memory.h"
#include "../analysis/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The highest peak of allocated memory on any device of tree, -1 when
 * none is known (no memory events, or no room to find it). */
static int64_t peak_memory(const tg_tree *tree)
{
	int64_t peak = -1;
	tg_memory_peak *peaks = NULL;
	size_t np = 0;
	if (tg_memory_peaks(&peaks, &np, tree, -1) != 0) {
		tg_error_clear();
		return -1;
	}
	for (size_t i = 0; i < np; i++)
		if (peaks[i].device_id >= 0 && peaks[i].events && peaks[i].peak_allocated > peak)
			peak = peaks[i].peak_allocated;
	free(peaks);
	return peak;
}

/* The step index of device event ev of tree (ns steps, nu units), or -1
 * when it is in none of them. */
static int32_t unit_of(const tg_tree *tree, size_t ns, size_t nu, uint32_t ev)
{
	int32_t s = ns ? tg_tree_step_of(tree, ev) : 0;
	return s >= 0 && (size_t)s < nu ? s : -1;
}

/* The device events dev[0..ndev) grouped by step (nu steps of a tree
 * with ns steps; all in one when ns is 0), in event order within a step:
 * step s's are (*list)[off[s] .. off[s + 1]) (off: nu + 1, zeroed by the
 * caller). An event outside every step is in none. *list is the
 * caller's to free. 0 or TG_ENOMEM. */
static int group_by_step(uint32_t **list, uint32_t *off, const tg_tree *tree, size_t ns, size_t nu,
                         const uint32_t *dev, size_t ndev)
{
	size_t n = 0;
	for (size_t k = 0; k < ndev; k++) {
		int32_t s = unit_of(tree, ns, nu, dev[k]);
		if (s >= 0) {
			off[s + 1]++;
			n++;
		}
	}
	uint32_t *fill = tg_malloc((nu + 1) * sizeof(uint32_t));
	*list = tg_malloc((n + 1) * sizeof(uint32_t));
	if (!fill || !*list) {
		free(fill);
		return TG_ENOMEM;
	}
	for (size_t s = 0; s < nu; s++)
		off[s + 1] += off[s];
	memcpy(fill, off, (nu + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < ndev; k++) {
		int32_t s = unit_of(tree, ns, nu, dev[k]);
		if (s >= 0)
			(*list)[fill[s]++] = dev[k];
	}
	free(fill);
	return 0;
}

/* The host syncs of each of the nu units of tree (ns steps) into syncs. */
static int count_syncs(uint64_t *syncs, const tg_tree *tree, size_t ns, size_t nu)
{
	if (ns)
		return tg_host_syncs_count_by_step(syncs, nu, tree);
	tg_host_sync_summary hs = {0};
	int rc = tg_host_syncs_summary(&hs, tree, -1);
	syncs[0] = hs.count;
	return rc;
}

int tg_measure_add_units(tg_measure *m, uint32_t ti, const uint32_t *dev, size_t ndev, uint32_t *first_unit)
{
	const tg_tree *tree = m->trees[ti];
	size_t ns;
	const tg_step *steps = tg_tree_steps(tree, &ns);
	size_t nu = ns ? ns : 1;
	if (tg_grow((void **)&m->units, &m->capunits, m->nunits + nu, sizeof(tg_unit)))
		return TG_ENOMEM;
	*first_unit = (uint32_t)m->nunits;
	int64_t peak = peak_memory(tree);
	uint32_t *off = tg_calloc(nu + 1, sizeof(uint32_t)), *list = NULL;
	uint64_t *syncs = tg_calloc(nu, sizeof(uint64_t));
	int rc = off && syncs ? group_by_step(&list, off, tree, ns, nu, dev, ndev) : TG_ENOMEM;
	if (!rc)
		rc = count_syncs(syncs, tree, ns, nu);
	for (size_t s = 0; !rc && s < nu; s++) {
		tg_timeline_opts to = {.tb = {0}, .step = ns ? (int32_t)s : -1, .device = -1};
		if (ns) {
			to.events = list + off[s];
			to.nevents = off[s + 1] - off[s];
		}
		tg_gpu_timeline tl;
		if ((rc = tg_gpu_timeline_compute(&tl, tree, &to)))
			break;
		tg_unit *u = &m->units[m->nunits++];
		u->trace = ti;
		u->step = ns ? steps[s].number : -1;
		u->busy_ns = llround(tl.busy_us * 1000.0);
		u->idle_ns = llround(tl.idle_us * 1000.0);
		u->exposed_comm_ns = llround(tl.exposed_comm_us * 1000.0);
		u->exposed_memcpy_ns = llround(tl.exposed_memcpy_us * 1000.0);
		u->total_ns = llround(tl.total_us * 1000.0);
		u->comm_ns = llround(tl.total_comm_us * 1000.0);
		u->memcpy_ns = llround(tl.total_memcpy_us * 1000.0);
		u->host_syncs = syncs[s];
		u->peak_memory = peak;
	}
	free(off);
	free(syncs);
	free(list);
	return rc;
}
