/* test-joined-sort.c: report/joined-sort.c orders names as `sort` orders
 * them followed by ';' (the end sorts as ';': "ab!" < "ab" < "abc"),
 * checked against a plain comparison on random names that share long
 * prefixes, with lengths around the 8-byte chunks, duplicates among them,
 * and a long shared prefix (no recursion per chunk). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/joined-sort.h"

/* The reference: bytes compared, the end of a name as ';'. */
static int cmp_ref(const char *a, const char *b)
{
	size_t i = 0;
	int ca, cb;

	while (a[i] && a[i] == b[i])
		i++;
	ca = a[i] ? (unsigned char)a[i] : ';';
	cb = b[i] ? (unsigned char)b[i] : ';';
	return ca < cb ? -1 : ca > cb;
}

static void fill(struct joined_item *v, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (struct joined_item){.s = names[i], .len = (uint32_t)strlen(names[i]),
					    .id = (uint32_t)i};
}

static void assert_sorted(const struct joined_item *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_ref(v[i - 1].s, v[i].s) > 0)
			fail_msg("'%s' before '%s'", v[i - 1].s, v[i].s);
}

static void test_terminator_order(void **state)
{
	static const char *const names[] = {"abc", "ab", "ab!", "a", "ab~", "", "b", "ab:", "ab<"};
	const char *want[] = {"", "a", "ab!", "ab:", "ab", "ab<", "abc", "ab~", "b"};
	struct joined_item v[9];

	(void)state;
	for (size_t i = 0; i < 9; i++)
		v[i] = (struct joined_item){.s = names[i], .len = (uint32_t)strlen(names[i]),
					    .id = (uint32_t)i};
	assert_int_equal(joined_sort(v, 9), 0);
	for (size_t i = 0; i < 9; i++)
		assert_string_equal(v[i].s, want[i]);
}

static void test_random_against_reference(void **state)
{
	static const char *const prefixes[] = {"", "[libjvm.so+0x7f", "[libjvm.so+0x7e",
					       "Lcom/example/Lambda$", "abcdefg", "abcdefgh"};
	static const char alphabet[] = "!09:<ABZ_az~\x80\xff";
	enum { N = 20000 };
	char **names = malloc(N * sizeof(*names));
	struct joined_item *v = malloc(N * sizeof(*v));
	unsigned seed = 12345;

	(void)state;
	assert_non_null(names);
	assert_non_null(v);
	for (size_t i = 0; i < N; i++) {
		const char *p = prefixes[rand_r(&seed) % 6];
		size_t extra = (size_t)(rand_r(&seed) % 19), len = strlen(p);

		names[i] = malloc(len + extra + 1);
		assert_non_null(names[i]);
		memcpy(names[i], p, len);
		for (size_t k = 0; k < extra; k++)
			names[i][len + k] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		names[i][len + extra] = '\0';
		if (i && rand_r(&seed) % 10 == 0) { /* duplicates */
			free(names[i]);
			names[i] = strdup(names[i - 1]);
			assert_non_null(names[i]);
		}
	}
	fill(v, names, N);
	assert_int_equal(joined_sort(v, N), 0);
	assert_sorted(v, N);
	/* every item once */
	{
		unsigned char *seen = calloc(N, 1);

		assert_non_null(seen);
		for (size_t i = 0; i < N; i++) {
			assert_true(v[i].id < N && !seen[v[i].id]);
			seen[v[i].id] = 1;
			assert_ptr_equal(v[i].s, names[v[i].id]);
		}
		free(seen);
	}
	for (size_t i = 0; i < N; i++)
		free(names[i]);
	free(names);
	free(v);
}

static void test_long_shared_prefix(void **state)
{
	enum { N = 300, LEN = 100000 };
	char **names = malloc(N * sizeof(*names));
	struct joined_item *v = malloc(N * sizeof(*v));

	(void)state;
	assert_non_null(names);
	assert_non_null(v);
	for (size_t i = 0; i < N; i++) {
		names[i] = malloc(LEN + 8);
		assert_non_null(names[i]);
		memset(names[i], 'x', LEN);
		snprintf(names[i] + LEN, 8, "%03zu", (N - i) % 97);
	}
	fill(v, names, N);
	assert_int_equal(joined_sort(v, N), 0);
	assert_sorted(v, N);
	for (size_t i = 0; i < N; i++)
		free(names[i]);
	free(names);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terminator_order),
	    cmocka_unit_test(test_random_against_reference),
	    cmocka_unit_test(test_long_shared_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
