/*
 * test_measure_pack.c - measure_pack.c: a measure's records and
 * invocations packed (rows of 24 bytes and the families they share,
 * invocations of 8 and their shapes) read back as they were, durations and
 * delays beyond 32 bits included; a packed measure appended to a
 * judgement's gives the records an unpacked one gives; what a packed
 * measure refuses; its rows and invocations held compact (measure_hold.c)
 * and given back the same, the values at the edges of 32 bits included.
 */
#include "testutil.h"

#include "../core/diff/measure.h"

#include <math.h>

enum { NREC = 700, NINV = 50 };

/* A trace of NREC records over NINV invocations and 3 units, with families
 * repeating (6 families: what a record shares is a function of its index
 * modulo 6; 12 shapes of invocations), durations and delays at and past
 * the limits of 32 bits (6 of each held whole), into *m on keys. */
static void make_measure(tg_measure **m, tg_atoms *keys, tg_kernel_rec *recs, tg_invocation *invs)
{
	static const int64_t edge[] = {INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, (int64_t)INT32_MIN + 1, -1, 0,
	                               INT64_MAX, INT64_MIN, 5000000000LL, -5000000000LL};
	const char *names[] = {"gemm", "sdpa", "elementwise", "(no launcher)", "Block_0/Linear_1", "", "nccl"};
	uint32_t k[7];
	for (int i = 0; i < 7; i++)
		assert_int_equal(tg_atoms_intern(&k[i], keys, names[i], strlen(names[i])), 0);
	for (size_t i = 0; i < NINV; i++)
		invs[i] = (tg_invocation){(uint32_t)(i * 3), k[i % 3], i % 4 ? (double)(i % 4) * 1e9 : NAN, (double)(i % 2)};
	for (size_t i = 0; i < NREC; i++) {
		recs[i] = (tg_kernel_rec){.unit = i % 11 ? (uint32_t)(i % 3) : TG_NONE,
		                          .inv = i % 13 ? (uint32_t)(i % NINV) : TG_NONE,
		                          .category = k[i % 3],
		                          .name_category = i % 6 < 2 ? TG_NONE : k[i % 2],
		                          .op = k[i % 6],
		                          .op_shape = k[i % 3],
		                          .kernel = k[6 - i % 6],
		                          .module = k[4 + i % 2],
		                          .event = (uint32_t)(1000 + i * 2),
		                          .pair = TG_NONE,
		                          .stream = (uint32_t)(i % 2),
		                          .cat_source = (uint8_t)(i % 3),
		                          .dur_ns = i < 10 ? edge[i] : (int64_t)i * 1000,
		                          .delay_ns = i >= 10 && i < 20 ? edge[i - 10] : (int64_t)(i % 9) - 1};
	}
	static const int64_t streams[] = {7, 1 << 20};
	tg_unit units[3] = {{.step = 1}, {.step = 2}, {.step = 3}};
	tg_measure_trace tr = {.rank = 3,
	                       .name = "rank3.json",
	                       .nsteps = 3,
	                       .fp = {.gpu = "H200", .world_size = 4},
	                       .recs = recs,
	                       .nrecs = NREC,
	                       .streams = streams,
	                       .nstreams = 2,
	                       .invs = invs,
	                       .ninvs = NINV,
	                       .units = units,
	                       .nunits = 3};
	assert_int_equal(tg_measure_new(m, keys), 0);
	assert_int_equal(tg_measure_add_trace(*m, &tr), 0);
}

static void same_rec(const tg_kernel_rec *a, const tg_kernel_rec *b)
{
	assert_int_equal(a->unit, b->unit);
	assert_int_equal(a->inv, b->inv);
	assert_int_equal(a->category, b->category);
	assert_int_equal(a->name_category, b->name_category);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->op_shape, b->op_shape);
	assert_int_equal(a->kernel, b->kernel);
	assert_int_equal(a->module, b->module);
	assert_int_equal(a->event, b->event);
	assert_int_equal(a->stream, b->stream);
	assert_int_equal(a->trace, b->trace);
	assert_int_equal(a->cat_source, b->cat_source);
	assert_int_equal(a->dur_ns, b->dur_ns);
	assert_int_equal(a->delay_ns, b->delay_ns);
}

static void same_inv(const tg_invocation *a, const tg_invocation *b)
{
	assert_int_equal(a->event, b->event);
	assert_int_equal(a->op_shape, b->op_shape);
	assert_true(a->flops == b->flops || (isnan(a->flops) && isnan(b->flops)));
	assert_true(a->bytes == b->bytes);
}

/* Every record and invocation reads back whole; the packed measure holds
 * 24 bytes a record and 8 an invocation beside its families (32 bytes
 * each), shapes (24) and the values held whole (16). */
static void test_pack_reads_back(void **state)
{
	(void)state;
	static tg_kernel_rec recs[NREC];
	static tg_invocation invs[NINV];
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m;
	make_measure(&m, keys, recs, invs);
	size_t n;
	const tg_kernel_rec *whole = tg_measure_kernels(m, &n);
	tg_kernel_rec *copy = malloc(NREC * sizeof(*copy));
	memcpy(copy, whole, NREC * sizeof(*copy));
	uint64_t before = tg_measure_mem_bytes(m);
	assert_int_equal(before, NREC * 64 + NINV * 24 + 3 * sizeof(tg_unit));
	assert_false(tg_measure_packed(m));
	assert_int_equal(tg_measure_pack(m), 0);
	assert_true(tg_measure_packed(m));
	assert_int_equal(tg_measure_pack(m), 0); /* packed already: as it is */
	assert_null(tg_measure_kernels(m, &n));
	assert_int_equal(n, NREC);
	assert_null(tg_measure_invocations(m, &n));
	assert_int_equal(n, NINV);
	assert_null(tg_measure_kernels_mut(m, &n));
	uint64_t after = tg_measure_mem_bytes(m);
	assert_int_equal(after, NREC * 24 + NINV * 8 + 3 * sizeof(tg_unit) + 12 * 16 + 6 * 32 + 12 * 24);
	assert_true(after * 2 < before);
	for (size_t i = 0; i < NREC; i++) {
		tg_kernel_rec r;
		tg_measure_kernel_get(&r, m, i);
		same_rec(&r, &copy[i]);
		assert_int_equal(r.pair, TG_NONE);
		assert_int_equal(tg_measure_rec_stream(m, &r), i % 2 ? 1 << 20 : 7);
	}
	for (size_t i = 0; i < NINV; i++) {
		tg_invocation v;
		tg_measure_invocation_get(&v, m, i);
		same_inv(&v, &invs[i]);
	}
	/* what it refuses: more traces, room */
	tg_measure_trace tr = {.name = "x"};
	assert_int_equal(tg_measure_add_trace(m, &tr), TG_EINVAL);
	assert_int_equal(tg_measure_reserve(m, 1, 1, 1), TG_EINVAL);
	assert_int_equal(tg_measure_fit(m), 0);
	assert_int_equal(tg_measure_mem_bytes(m), after);
	free(copy);
	tg_measure_free(m);
	tg_atoms_free(keys);
}

/* A packed measure appended to a judgement's (keys of another table, with
 * a trace before it) gives the records, invocations and streams an
 * unpacked one gives; appending to a packed measure is refused. */
static void test_pack_append(void **state)
{
	(void)state;
	static tg_kernel_rec recs[NREC];
	static tg_invocation invs[NINV];
	tg_atoms *k1 = tg_atoms_new(), *k2 = tg_atoms_new(), *k3 = tg_atoms_new();
	tg_measure *a, *b, *da, *db;
	make_measure(&a, k1, recs, invs);
	make_measure(&b, k2, recs, invs);
	assert_int_equal(tg_measure_pack(b), 0);
	assert_int_equal(tg_measure_new(&da, k3), 0);
	assert_int_equal(tg_measure_new(&db, k3), 0);
	for (int twice = 0; twice < 2; twice++) {
		int64_t rank = 5 + twice;
		const char *name = "base.json";
		assert_int_equal(tg_measure_append(da, a, &rank, &name), 0);
		assert_int_equal(tg_measure_append(db, b, &rank, &name), 0);
	}
	size_t na, nb, ia, ib;
	const tg_kernel_rec *ra = tg_measure_kernels(da, &na), *rb = tg_measure_kernels(db, &nb);
	const tg_invocation *va = tg_measure_invocations(da, &ia), *vb = tg_measure_invocations(db, &ib);
	assert_int_equal(na, 2 * NREC);
	assert_int_equal(nb, na);
	assert_int_equal(ib, ia);
	for (size_t i = 0; i < na; i++) {
		same_rec(&ra[i], &rb[i]);
		assert_int_equal(tg_measure_rec_stream(da, &ra[i]), tg_measure_rec_stream(db, &rb[i]));
		assert_int_equal(tg_measure_rec_rank(db, &rb[i]), i < NREC ? 5 : 6);
	}
	for (size_t i = 0; i < ia; i++)
		same_inv(&va[i], &vb[i]);
	assert_int_equal(rb[NREC + 3].inv, NINV + 3);
	assert_string_equal(tg_measure_trace_name(db, 1), "base.json");
	assert_int_equal(tg_measure_append(b, a, NULL, NULL), TG_EINVAL);
	tg_measure_free(a);
	tg_measure_free(b);
	tg_measure_free(da);
	tg_measure_free(db);
	tg_atoms_free(k1);
	tg_atoms_free(k2);
	tg_atoms_free(k3);
}

/* A packed measure held compact (tg_measure_compact) and given back
 * (tg_measure_expand): every record and invocation reads as before (whole
 * durations and delays, TG_NONE units and invocations), its bytes while
 * compact a third of the rows' at most; a measure that is not packed, and
 * one compact already or not compact, are left as they are. */
static void test_compact(void **state)
{
	(void)state;
	static tg_kernel_rec recs[NREC];
	static tg_invocation invs[NINV];
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m;
	make_measure(&m, keys, recs, invs);
	size_t n;
	tg_kernel_rec *copy = malloc(NREC * sizeof(*copy));
	memcpy(copy, tg_measure_kernels(m, &n), NREC * sizeof(*copy));
	uint64_t whole = tg_measure_mem_bytes(m);
	assert_int_equal(tg_measure_compact(m), 0); /* not packed: as it is */
	assert_int_equal(tg_measure_mem_bytes(m), whole);
	assert_non_null(tg_measure_kernels(m, &n));
	assert_int_equal(tg_measure_expand(m), 0);
	assert_int_equal(tg_measure_pack(m), 0);
	uint64_t packed = tg_measure_mem_bytes(m);
	assert_int_equal(tg_measure_expand(m), 0); /* not compact: as it is */
	assert_int_equal(tg_measure_mem_bytes(m), packed);
	assert_int_equal(tg_measure_compact(m), 0);
	uint64_t compact = tg_measure_mem_bytes(m);
	assert_int_equal(tg_measure_compact(m), 0); /* compact already */
	assert_int_equal(tg_measure_mem_bytes(m), compact);
	uint64_t rows = NREC * 24 + NINV * 8, beside = packed - rows;
	assert_true((compact - beside) * 3 < rows);
	for (int round = 0; round < 2; round++) { /* given back, then held and given back again */
		assert_int_equal(tg_measure_expand(m), 0);
		assert_int_equal(tg_measure_mem_bytes(m), packed);
		for (size_t i = 0; i < NREC; i++) {
			tg_kernel_rec r;
			tg_measure_kernel_get(&r, m, i);
			same_rec(&r, &copy[i]);
		}
		for (size_t i = 0; i < NINV; i++) {
			tg_invocation v;
			tg_measure_invocation_get(&v, m, i);
			same_inv(&v, &invs[i]);
		}
		assert_int_equal(tg_measure_compact(m), 0);
		assert_int_equal(tg_measure_mem_bytes(m), compact);
	}
	free(copy);
	tg_measure_free(m); /* compact: its stream freed */
	tg_atoms_free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_reads_back),
		cmocka_unit_test(test_pack_append),
		cmocka_unit_test(test_compact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
