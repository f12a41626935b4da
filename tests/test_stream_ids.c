/* test_stream_ids.c - (device, stream) pairs numbered by first appearance,
 * renumbered in (device, stream) order, looked up and added to after that,
 * many streams (the hash table's growth), negative and extreme values. */
#include "testutil.h"

#include "../core/analysis/stream_ids.h"

static uint32_t id_of(tg_stream_ids *s, int64_t device, int64_t stream)
{
	uint32_t id = 12345;
	assert_int_equal(tg_stream_ids_get(&id, s, device, stream), 0);
	return id;
}

static void test_first_appearance_then_sorted(void **state)
{
	(void)state;
	tg_stream_ids s = TG_STREAM_IDS_INIT;
	assert_int_equal(id_of(&s, 1, 7), 0);
	assert_int_equal(id_of(&s, 0, 20), 1);
	assert_int_equal(id_of(&s, 1, 7), 0); /* the last one looked up */
	assert_int_equal(id_of(&s, 0, 7), 2);
	assert_int_equal(id_of(&s, -1, INT64_MAX), 3);
	assert_int_equal(id_of(&s, 0, 20), 1); /* through the table */
	assert_int_equal(s.n, 4);
	uint32_t *rank;
	assert_int_equal(tg_stream_ids_sort(&rank, &s), 0);
	/* (-1, max) < (0, 7) < (0, 20) < (1, 7) */
	assert_int_equal(rank[0], 3);
	assert_int_equal(rank[1], 2);
	assert_int_equal(rank[2], 1);
	assert_int_equal(rank[3], 0);
	assert_int_equal(s.v[0].device, -1);
	assert_int_equal(s.v[0].stream, INT64_MAX);
	assert_int_equal(s.v[1].device, 0);
	assert_int_equal(s.v[1].stream, 7);
	assert_int_equal(s.v[3].device, 1);
	free(rank);
	/* the new numbers are looked up, and a new pair comes after them */
	assert_int_equal(id_of(&s, 1, 7), 3);
	assert_int_equal(id_of(&s, 0, 20), 2);
	assert_int_equal(id_of(&s, INT64_MIN, 0), 4);
	assert_int_equal(id_of(&s, -1, INT64_MAX), 0);
	tg_stream_ids_free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
}

static void test_many(void **state)
{
	(void)state;
	tg_stream_ids s = TG_STREAM_IDS_INIT;
	enum { N = 50000 };
	for (int64_t i = 0; i < N; i++) /* streams in descending order, two devices */
		assert_int_equal(id_of(&s, i & 1, (N - i) * 1000003), (uint32_t)i);
	for (int64_t i = N - 1; i >= 0; i--)
		assert_int_equal(id_of(&s, i & 1, (N - i) * 1000003), (uint32_t)i);
	uint32_t *rank;
	assert_int_equal(tg_stream_ids_sort(&rank, &s), 0);
	for (size_t k = 1; k < s.n; k++) /* sorted */
		assert_true(s.v[k - 1].device < s.v[k].device ||
		            (s.v[k - 1].device == s.v[k].device && s.v[k - 1].stream < s.v[k].stream));
	/* device 0 holds the even i, streams descending in i: i = N - 2 comes first */
	assert_int_equal(rank[N - 2], 0);
	assert_int_equal(rank[0], N / 2 - 1);
	assert_int_equal(rank[N - 1], N / 2);
	for (int64_t i = 0; i < N; i++)
		assert_int_equal(id_of(&s, i & 1, (N - i) * 1000003), rank[i]);
	free(rank);
	tg_stream_ids_free(&s);
}

static void test_empty(void **state)
{
	(void)state;
	tg_stream_ids s = TG_STREAM_IDS_INIT;
	uint32_t *rank = NULL;
	assert_int_equal(tg_stream_ids_sort(&rank, &s), 0);
	assert_non_null(rank);
	free(rank);
	assert_int_equal(id_of(&s, 3, 4), 0);
	tg_stream_ids_free(&s);
	tg_stream_ids_free(&s); /* twice: nothing held */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_appearance_then_sorted),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
