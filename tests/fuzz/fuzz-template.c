/*
 * libFuzzer target for the template engine: the input is a template (and,
 * after a NUL byte, a second template named "p"), parsed and rendered
 * against a small fixed value, lenient and escaping, then strict.  The
 * input is also template "t", so {{>t}} and {{<t}} recurse.  A parsed
 * template must render the same bytes twice, and a strict render that
 * succeeds must equal the lenient one (they differ only on missing names).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "template.h"
#include "value.h"

static const char data_json[] =
	"{\"a\":\"x<&>\\\"\",\"n\":85,\"d\":1.5,\"t\":true,\"f\":false,\"z\":null,"
	"\"l\":[1,\"two\",{\"a\":\"in\",\"l\":[]}],\"o\":{\"a\":{\"b\":\"deep\"},\"e\":[]},"
	"\"s\":\"\"}";

/* Renders twice; returns the result (or -1) in *out. */
static int render_twice(struct template_set *set, const struct template *t,
			const struct value *data, const struct template_options *opt,
			struct buf *out)
{
	struct buf again = BUF_INIT, err = BUF_INIT;
	int r1 = template_render(set, t, data, opt, out, &err);
	int r2 = template_render(set, t, data, opt, &again, &err);

	if (r1 != r2 || out->len != again.len || memcmp(out->data, again.data, out->len))
		abort();
	if (r1 < 0 && (out->len || !err.len))
		abort();
	buf_release(&again);
	buf_release(&err);
	return r1;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
	static const struct template_options escaping = { 1, 1 }, lenient = { 1, 0 },
		strict = { 0, 0 };
	struct buf a = BUF_INIT, b = BUF_INIT;
	const char *text = (const char *)bytes;
	const char *nul = memchr(text, '\0', size);
	size_t len = nul ? (size_t)(nul - text) : size;
	struct template_set *set = template_set_new(NULL);
	struct buf err = BUF_INIT;
	struct value *data = NULL;
	struct template *own = NULL;
	const struct template *t;

	if (json_parse(data_json, sizeof(data_json) - 1, "data", &data, &err) < 0)
		abort();
	if (nul)
		template_set_add(set, "p", nul + 1, size - len - 1, &err);
	if (template_set_add(set, "t", text, len, &err) == 0) {
		if (template_set_get(set, "t", &t, &err) < 0)
			abort();
		render_twice(set, t, data, &escaping, &a);
		buf_reset(&a);
		if (render_twice(set, t, data, &strict, &a) == 0 &&
		    (render_twice(set, t, data, &lenient, &b) < 0 || a.len != b.len ||
		     memcmp(a.data, b.data, a.len)))
			abort();
	}
	/* A template outside the set, rendered without one. */
	buf_reset(&a);
	if (template_parse("own", text, size, &own, &err) == 0)
		render_twice(NULL, own, data, &escaping, &a);
	else if (!err.len)
		abort();
	buf_release(&a);
	buf_release(&b);
	template_free(own);
	template_set_free(set);
	value_free(data);
	buf_release(&err);
	return 0;
}
