#include <string.h>

#include "date.h"
#include "mboxrd.h"
#include "banned.h"

static const char *const weekdays[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* ">*From " at the start of a line */
static int needs_quote(const char *p, const char *end)
{
	while (p < end && *p == '>')
		p++;
	return end - p >= 5 && !memcmp(p, "From ", 5);
}

void mboxrd_append(struct buf *out, const char *sender, int64_t date,
		   const char *raw, size_t len)
{
	struct date_civil c;
	const char *p = raw, *end = raw + len;

	/* a space or line end in the sender would break the separator line */
	if (!sender || !*sender || strpbrk(sender, " \t\r\n"))
		sender = "MAILER-DAEMON";
	date_to_civil(date, 0, &c);
	buf_addf(out, "From %s %s %s %2d %02d:%02d:%02d %lld\n", sender, weekdays[c.weekday % 7],
		 months[(c.month - 1) % 12], c.day, c.hour, c.minute, c.second, (long long)c.year);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);

		if (needs_quote(p, stop))
			buf_addc(out, '>');
		if (n && p[n - 1] == '\r')
			n--;
		buf_add(out, p, n);
		buf_addc(out, '\n');
		p = nl ? nl + 1 : end;
	}
	buf_addc(out, '\n');
}
