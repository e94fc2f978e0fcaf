#include <stdarg.h>
#include <stdlib.h>

#include "buf.h"
#include "charset.h"
#include "problem.h"
#include "xalloc.h"
#include "banned.h"

void problem_vadd(const struct problems *p, const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT, clean = BUF_INIT;

	if (!p || *p->nr > p->max)
		return;
	if (*p->nr == p->max)
		buf_adds(&b, p->more);
	else
		buf_vaddf(&b, fmt, ap);
	charset_repair_utf8(b.data, b.len, &clean);
	*p->v = xrealloc(*p->v, (*p->nr + 1) * sizeof(char *));
	(*p->v)[(*p->nr)++] = buf_detach(&clean, NULL);
	buf_release(&b);
}

void problem_add(const struct problems *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problem_vadd(p, fmt, ap);
	va_end(ap);
}

void problems_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
