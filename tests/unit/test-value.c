/*
 * value.h's pool: a tree made in a pool is the same tree a malloc'd one
 * is (members past the first growth, keys, replaced keys, owned and long
 * strings); a value made outside and put into a pooled tree is freed with
 * it; a reset pool gives its blocks to the next tree; threads' pools are
 * their own; a string referred to is neither copied nor freed.  (Under
 * `make unit SANITIZE=address` a leak or a use after reset fails here.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "value.h"
#include "xalloc.h"

/* A tree with every kind, 40 members in an array and an object (past
 * the 8 the first growth holds), a replaced key, an owned string and one
 * longer than a pool block's quarter. */
static struct value *make_tree(void)
{
	struct value *o = value_new_object(), *a, *wide;
	struct buf b = BUF_INIT;
	char key[16];
	size_t i;

	value_object_add(o, "null", value_new_null());
	value_object_add_bool(o, "yes", 1);
	value_object_add(o, "pi", value_new_number(3.25));
	value_object_add(o, "n", value_new_integer(-42));
	value_object_add_string(o, "s", "text \"quoted\"");
	a = value_object_add(o, "list", value_new_array());
	wide = value_object_add(o, "wide", value_new_object());
	for (i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		value_array_push(a, value_new_integer((int64_t)i));
		value_object_add(wide, key, value_new_integer((int64_t)(i * i)));
	}
	value_object_set_string(o, "s", "replaced");
	buf_addf(&b, "owned %d", 7);
	value_object_add(o, "owned", value_new_string_owned(buf_detach(&b, NULL), 7));
	buf_addchars(&b, 'x', 40000);
	value_object_add(o, "long", value_new_stringn(b.data, b.len));
	buf_release(&b);
	return o;
}

static char *as_json(const struct value *v)
{
	struct buf b = BUF_INIT;

	value_write_json(&b, v, 0);
	return buf_detach(&b, NULL);
}

static void pooled_tree_is_the_same_tree(void **state)
{
	struct value_pool pool = { 0 };
	struct value *plain = make_tree(), *pooled;
	char *want = as_json(plain), *got;

	(void)state;
	value_pool_use(&pool);
	pooled = make_tree();
	got = as_json(pooled);
	assert_true(pooled->pooled);
	assert_false(plain->pooled);
	assert_string_equal(got, want);
	assert_int_equal(value_object_get(pooled, "wide")->nr, 40);
	assert_int_equal(value_object_get(value_object_get(pooled, "wide"), "k39")->number, 39 * 39);
	assert_string_equal(value_object_get(pooled, "s")->str, "replaced");
	assert_int_equal(value_object_get(pooled, "long")->len, 40000);
	value_free(pooled);	/* gives nothing back, and must not crash */
	value_pool_reset(&pool);
	value_pool_use(NULL);
	value_pool_release(&pool);
	value_free(plain);
	free(want);
	free(got);
}

static void foreign_member_is_freed_with_its_pooled_parent(void **state)
{
	struct value_pool pool = { 0 };
	struct value *foreign = value_new_array(), *root;

	(void)state;
	value_array_push(foreign, value_new_string("made before the pool"));
	value_pool_use(&pool);
	root = value_new_object();
	value_object_add(root, "foreign", foreign);
	assert_false(foreign->pooled);
	assert_true(root->pooled);
	value_free(root);	/* frees foreign (a leak checker sees it) */
	value_pool_reset(&pool);
	value_pool_use(NULL);
	value_pool_release(&pool);
}

static void reset_pool_gives_its_blocks_to_the_next_tree(void **state)
{
	struct value_pool pool = { 0 };
	struct value *first, *again;
	size_t blocks;

	(void)state;
	value_pool_use(&pool);
	first = make_tree();
	blocks = pool.nr;
	assert_true(blocks >= 1);
	value_pool_reset(&pool);
	again = make_tree();
	assert_ptr_equal(again, first);	/* the same bytes, carved again */
	assert_int_equal(pool.nr, blocks);	/* no block more */
	value_pool_reset(&pool);
	value_pool_use(NULL);
	value_pool_release(&pool);
	assert_int_equal(pool.nr, 0);
	assert_null(pool.blocks);
}

/* A referred string is the caller's bytes: not copied, and not freed (a
 * free() of these static bytes would abort), in a pool or not. */
static void string_ref_is_not_copied_nor_freed(void **state)
{
	static const char row[] = "<tr><td>1</td></tr>";
	struct value_pool pool = { 0 };
	struct value *list, *v;
	char *json;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		if (k)
			value_pool_use(&pool);
		list = value_new_array();
		v = value_array_push(list, value_new_string_ref(row, sizeof(row) - 1));
		assert_ptr_equal(v->str, row);
		assert_int_equal(v->len, sizeof(row) - 1);
		json = as_json(list);
		assert_string_equal(json, "[\"<tr><td>1</td></tr>\"]");
		free(json);
		value_free(list);
	}
	value_pool_reset(&pool);
	value_pool_use(NULL);
	value_pool_release(&pool);
}

static void *thread_tree(void *arg)
{
	struct value_pool pool = { 0 };
	struct value *v;
	char *json;

	(void)arg;
	value_pool_use(&pool);
	v = make_tree();
	json = as_json(v);
	value_pool_use(NULL);
	value_pool_release(&pool);
	return json;
}

static void each_thread_has_its_own_pool(void **state)
{
	struct value_pool pool = { 0 };
	struct value *mine, *want = make_tree();
	char *expect = as_json(want), *theirs = NULL;
	pthread_t th;

	(void)state;
	value_pool_use(&pool);
	mine = value_new_object();
	assert_int_equal(pthread_create(&th, NULL, thread_tree, NULL), 0);
	assert_int_equal(pthread_join(th, (void **)&theirs), 0);
	/* the other thread's pool was not this one */
	assert_int_equal(pool.nr, 1);
	assert_true(mine->pooled);
	assert_string_equal(theirs, expect);
	value_pool_use(NULL);
	value_pool_release(&pool);
	/* and this thread is back on malloc */
	mine = value_new_null();
	assert_false(mine->pooled);
	value_free(mine);
	value_free(want);
	free(expect);
	free(theirs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pooled_tree_is_the_same_tree),
		cmocka_unit_test(foreign_member_is_freed_with_its_pooled_parent),
		cmocka_unit_test(reset_pool_gives_its_blocks_to_the_next_tree),
		cmocka_unit_test(each_thread_has_its_own_pool),
		cmocka_unit_test(string_ref_is_not_copied_nor_freed),
	};

	return cmocka_run_group_tests_name("value", tests, NULL, NULL);
}
