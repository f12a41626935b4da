/*
 * critical_path_offs.c - the edges' offsets by source packed for the
 * longest path (critical_path_impl.h: struct cp_offs): a node's out-degree
 * in a byte and every 16th node's offset, about 1.25 bytes a node instead
 * of cp->soff's 4 while Kahn's loop holds the distances, the best edges and
 * the times beside it. A node's offset is its block's plus the degrees
 * before it in the block (cp_offs_range: two 8-byte loads and a sum of
 * their bytes). A node of 255 edges or more (a runtime lock's start with
 * many ends, rare) marks its block, whose 16 offsets are kept aside and
 * found through a map. cp->soff is made again from them once the loop is
 * done (the path's edges are found by source).
 */
#include "critical_path_impl.h"
#include "../../util/big.h"
#include "../../util/idmap.h"

#include <stdlib.h>
#include <string.h>

int cp_offs_pack(struct cp_offs *o, tg_critical_path *cp, uint32_t **spare)
{
	size_t nn = cp->nnodes, nb = nn / CP_OFFS_BLOCK + 1, nbig = 0;
	const uint32_t *off = cp->soff;
	*o = (struct cp_offs){0};
	o->deg = tg_calloc(nb * CP_OFFS_BLOCK, 1); /* whole blocks: the loads read them */
	o->ck = tg_malloc((nb + 1) * sizeof(uint32_t));
	if (!o->deg || !o->ck)
		return TG_ENOMEM;
	for (size_t b = 0; b < nb; b++) {
		o->ck[b] = off[b * CP_OFFS_BLOCK < nn ? b * CP_OFFS_BLOCK : nn];
		int big = 0;
		for (size_t u = b * CP_OFFS_BLOCK; u < nn && u < (b + 1) * CP_OFFS_BLOCK; u++) {
			uint32_t d = off[u + 1] - off[u];
			o->deg[u] = d < 255 ? (uint8_t)d : 255;
			big |= d >= 255;
		}
		nbig += big;
	}
	if (nbig) {
		o->big = tg_idmap_new(nbig);
		o->bigoff = tg_malloc(nbig * (CP_OFFS_BLOCK + 1) * sizeof(uint32_t));
		if (!o->big || !o->bigoff)
			return TG_ENOMEM;
		for (size_t b = 0, k = 0; b < nb; b++) {
			size_t lo = b * CP_OFFS_BLOCK, hi = lo + CP_OFFS_BLOCK < nn ? lo + CP_OFFS_BLOCK : nn, u;
			for (u = lo; u < hi && o->deg[u] != 255; u++)
				;
			if (u == hi)
				continue;
			if (tg_idmap_put(o->big, (int64_t)b, (uint32_t)k) < 0)
				return TG_ENOMEM;
			o->ck[b] |= CP_OFFS_BIG;
			for (u = lo; u <= hi; u++) /* the block's offsets and its end */
				o->bigoff[k * (CP_OFFS_BLOCK + 1) + (u - lo)] = off[u];
			k++;
		}
	}
	*spare = cp->soff;
	cp->soff = NULL;
	return 0;
}

int cp_offs_unpack(struct cp_offs *o, tg_critical_path *cp)
{
	size_t nn = cp->nnodes;
	uint32_t *off = tg_big_alloc((nn + 2) * sizeof(uint32_t));
	if (!off)
		return TG_ENOMEM;
	off[0] = 0;
	for (uint32_t u = 0; u < nn; u++) /* a running sum, the blocks kept aside read as they are */
		if (o->deg[u] == 255 || (o->ck[u / CP_OFFS_BLOCK] & CP_OFFS_BIG))
			cp_offs_range(o, u, &off[u], &off[u + 1]);
		else
			off[u + 1] = off[u] + o->deg[u];
	cp->soff = off;
	cp_offs_free(o);
	return 0;
}

void cp_offs_free(struct cp_offs *o)
{
	free(o->deg);
	free(o->ck);
	tg_idmap_free(o->big);
	free(o->bigoff);
	*o = (struct cp_offs){0};
}
