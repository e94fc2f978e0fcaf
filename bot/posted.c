#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "posted.h"
#include "xalloc.h"
#include "banned.h"

int posted_subject_is_patch(const char *subject)
{
	if (!subject)
		return 0;
	while (*subject == ' ' || *subject == '\t')
		subject++;
	return !strncasecmp(subject, "[PATCH", 6);
}

size_t posted_scan(const struct fix_index *ix, const char *subject, const char *message,
		   struct trailer_list *tl, struct fix_matches *out)
{
	struct buf text = BUF_INIT;
	struct fix_trailer *t;
	struct fix_commit c;
	size_t i, w;

	out->nr = 0;
	buf_addf(&text, "%s\n\n%s", subject ? subject : "", message ? message : "");
	trailer_parse(tl, text.data, text.len, TRAILER_MAIL);
	buf_release(&text);
	if (!tl->nr)
		return 0;
	t = xcalloc(tl->nr, sizeof(*t));
	for (i = 0; i < tl->nr; i++) {
		t[i].key = tl->v[i].key;
		t[i].value = tl->v[i].value;
	}
	memset(&c, 0, sizeof(c));
	c.id = "";
	c.subject = subject ? subject : "";
	c.trailers = t;
	c.nr_trailers = tl->nr;
	fix_scan(ix, &c, out);
	free(t);
	/* a possible fix says nothing of the report's own; a mail is no
	 * revert nor fixed-by commit (it has no id) */
	for (i = w = 0; i < out->nr; i++)
		if (out->v[i].kind == FIX_CLOSES || out->v[i].kind == FIX_LINK ||
		    out->v[i].kind == FIX_FIXES)
			out->v[w++] = out->v[i];
	out->nr = w;
	return w;
}
