#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "date.h"
#include "header.h"
#include "banned.h"

static const char *const day_names[7] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
};
static const char *const day_full[7] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};
static const char *const month_names[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};
static const char *const month_full[12] = {
	"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December",
};

/* Division rounding toward minus infinity, for negative epochs. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;

	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

int date_is_leap(int64_t year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int date_days_in_month(int64_t year, int month)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (month < 1 || month > 12)
		return 0;
	if (month == 2 && date_is_leap(year))
		return 29;
	return days[month - 1];
}

/* Days since 1970-01-01 of y-m-d (Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = y - era * 400;				/* 0..399 */
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;	/* 0..365 */
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;	/* 0..146096 */
	return era * 146097 + doe - 719468;
}

/* The inverse (Hinnant's civil_from_days); |z| < 2^62. */
static void civil_from_days(int64_t z, struct date_civil *c)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = floor_div(z, 146097);
	doe = z - era * 146097;				/* 0..146096 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	c->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	c->month = (int)(mp < 10 ? mp + 3 : mp - 9);
	c->year = yoe + era * 400 + (c->month <= 2);
}

/* The day at epoch in the zone (days since 1970-01-01) and the seconds
 * into it: split first, so that adding the zone cannot overflow. */
static int64_t day_and_seconds(int64_t epoch, int zone_minutes, int64_t *secs)
{
	int64_t days = floor_div(epoch, 86400);

	*secs = floor_mod(epoch, 86400) + (int64_t)zone_minutes * 60;
	days += floor_div(*secs, 86400);
	*secs = floor_mod(*secs, 86400);
	return days;
}

int64_t date_day_number(int64_t epoch, int zone_minutes)
{
	int64_t secs;

	return day_and_seconds(epoch, zone_minutes, &secs);
}

void date_to_civil(int64_t epoch, int zone_minutes, struct date_civil *out)
{
	int64_t secs, days = day_and_seconds(epoch, zone_minutes, &secs);

	civil_from_days(days, out);
	out->hour = (int)(secs / 3600);
	out->minute = (int)(secs / 60 % 60);
	out->second = (int)(secs % 60);
	out->weekday = (int)floor_mod(days + 4, 7);	/* 1970-01-01 was a Thursday */
}

int64_t date_from_civil(const struct date_civil *c, int zone_minutes)
{
	return days_from_civil(c->year, c->month, c->day) * 86400 +
	       c->hour * 3600 + c->minute * 60 + c->second -
	       (int64_t)zone_minutes * 60;
}

static int err_quoted(struct buf *err, const char *what, const char *s, const char *why)
{
	struct buf q = BUF_INIT;

	header_quote_input(&q, s);
	err_set(err, "invalid %s %s: %s", what, q.data, why);
	buf_release(&q);
	return -1;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads exactly n digits at s; -1 if one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int date_parse_zone(const char *s, int *minutes, struct buf *err)
{
	int hh, mm;

	if (!strcmp(s, "UTC")) {
		*minutes = 0;
		return 0;
	}
	if ((s[0] != '+' && s[0] != '-') || strlen(s) != 5 ||
	    (hh = digits(s + 1, 2)) < 0 || (mm = digits(s + 3, 2)) < 0)
		return err_quoted(err, "time zone", s, "expected +hhmm, -hhmm or UTC");
	if (mm > 59)
		return err_quoted(err, "time zone", s, "minutes must be 00..59");
	if (hh * 60 + mm > DATE_ZONE_MAX_MINUTES) {
		char why[64];

		snprintf(why, sizeof(why), "offsets range from -%02d%02d to +%02d%02d",
			 DATE_ZONE_MAX_MINUTES / 60, DATE_ZONE_MAX_MINUTES % 60,
			 DATE_ZONE_MAX_MINUTES / 60, DATE_ZONE_MAX_MINUTES % 60);
		return err_quoted(err, "time zone", s, why);
	}
	*minutes = (s[0] == '-' ? -1 : 1) * (hh * 60 + mm);
	return 0;
}

int date_parse_local(const char *s, int zone_minutes, int64_t *epoch, struct buf *err)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd";
	struct date_civil c;
	size_t i;
	int year;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
			break;
	if (shape[i] || s[i])
		return err_quoted(err, "date", s, "expected YYYY-MM-DD hh:mm:ss");
	year = digits(s, 4);
	c.year = year;
	c.month = digits(s + 5, 2);
	c.day = digits(s + 8, 2);
	c.hour = digits(s + 11, 2);
	c.minute = digits(s + 14, 2);
	c.second = digits(s + 17, 2);
	if (year < DATE_LOCAL_YEAR_MIN || year > DATE_LOCAL_YEAR_MAX) {
		char why[64];

		snprintf(why, sizeof(why), "years range from %d to %d",
			 DATE_LOCAL_YEAR_MIN, DATE_LOCAL_YEAR_MAX);
		return err_quoted(err, "date", s, why);
	}
	if (c.month < 1 || c.month > 12)
		return err_quoted(err, "date", s, "no such month");
	if (c.day < 1 || c.day > date_days_in_month(c.year, c.month))
		return err_quoted(err, "date", s, "no such day in that month");
	if (c.hour > 23 || c.minute > 59 || c.second > 59)
		return err_quoted(err, "date", s, "no such time of day (00:00:00 to 23:59:59)");
	*epoch = date_from_civil(&c, zone_minutes);
	return 0;
}

int date_parse_iso8601(const char *s, int64_t *epoch, struct buf *err)
{
	static const char shape[] = "dddd-dd-dd";
	struct buf local = BUF_INIT;
	const char *p;
	int zone = 0, sign, hh, mm = 0, r;
	size_t i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
			return err_quoted(err, "date", s, "expected YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss][Z|+hh:mm]");
	buf_add(&local, s, 10);
	p = s + 10;
	if (!*p) {
		buf_adds(&local, " 00:00:00");
	} else {
		if ((*p != 'T' && *p != 't' && *p != ' ') || !is_digit(p[1]) || !is_digit(p[2]) ||
		    p[3] != ':' || !is_digit(p[4]) || !is_digit(p[5])) {
			buf_release(&local);
			return err_quoted(err, "date", s, "expected YYYY-MM-DDThh:mm[:ss][Z|+hh:mm] after the date");
		}
		buf_addf(&local, " %.5s", p + 1);
		p += 6;
		if (*p == ':' && is_digit(p[1]) && is_digit(p[2])) {
			buf_addf(&local, ":%.2s", p + 1);
			p += 3;
			if (*p == '.' || *p == ',') {
				p++;
				if (!is_digit(*p)) {
					buf_release(&local);
					return err_quoted(err, "date", s, "a fraction needs digits");
				}
				while (is_digit(*p))
					p++;
			}
		} else {
			buf_adds(&local, ":00");
		}
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			sign = *p == '-' ? -1 : 1;
			if (!is_digit(p[1]) || !is_digit(p[2])) {
				buf_release(&local);
				return err_quoted(err, "date", s, "a zone is Z, +hh:mm, +hhmm or +hh");
			}
			hh = digits(p + 1, 2);
			p += 3;
			if (*p == ':')
				p++;
			if (is_digit(p[0]) && is_digit(p[1])) {
				mm = digits(p, 2);
				p += 2;
			}
			if (hh > 23 || mm > 59) {
				buf_release(&local);
				return err_quoted(err, "date", s, "no such zone");
			}
			zone = sign * (hh * 60 + mm);
		}
		if (*p) {
			buf_release(&local);
			return err_quoted(err, "date", s, "unexpected text after the time");
		}
	}
	r = date_parse_local(local.data, zone, epoch, err);
	buf_release(&local);
	if (r < 0) {
		/* the message names the rewritten text: name the one given */
		struct buf why = BUF_INIT;

		buf_adds(&why, err && err->len ? err->data : "");
		r = err_quoted(err, "date", s, strstr(why.data, ": ") ? strstr(why.data, ": ") + 2 : "not a date");
		buf_release(&why);
	}
	return r;
}

static void add_zone(struct buf *out, int zone_minutes)
{
	int64_t z = zone_minutes;
	char sign = z < 0 ? '-' : '+';

	if (z < 0)
		z = -z;
	buf_addf(out, "%c%02d%02d", sign, (int)(z / 60 % 100), (int)(z % 60));
}

void date_format_rfc5322(struct buf *out, int64_t epoch, int zone_minutes)
{
	struct date_civil c;

	date_to_civil(epoch, zone_minutes, &c);
	buf_addf(out, "%s, %d %s %04lld %02d:%02d:%02d ", day_names[c.weekday], c.day,
		 month_names[c.month - 1], (long long)c.year, c.hour, c.minute, c.second);
	add_zone(out, zone_minutes);
}

void date_format_rfc3339_utc(struct buf *out, int64_t epoch)
{
	struct date_civil c;

	date_to_civil(epoch, 0, &c);
	if (c.year >= 0 && c.year <= 9999) {
		/* the usual year without vsnprintf: the site writes one of
		 * these for every entry of every feed */
		char t[] = "0000-00-00T00:00:00Z";
		int y = (int)c.year;

		t[0] = (char)('0' + y / 1000);
		t[1] = (char)('0' + y / 100 % 10);
		t[2] = (char)('0' + y / 10 % 10);
		t[3] = (char)('0' + y % 10);
		t[5] = (char)('0' + c.month / 10);
		t[6] = (char)('0' + c.month % 10);
		t[8] = (char)('0' + c.day / 10);
		t[9] = (char)('0' + c.day % 10);
		t[11] = (char)('0' + c.hour / 10);
		t[12] = (char)('0' + c.hour % 10);
		t[14] = (char)('0' + c.minute / 10);
		t[15] = (char)('0' + c.minute % 10);
		t[17] = (char)('0' + c.second / 10);
		t[18] = (char)('0' + c.second % 10);
		buf_add(out, t, sizeof(t) - 1);
		return;
	}
	buf_addf(out, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)c.year, c.month,
		 c.day, c.hour, c.minute, c.second);
}

void date_format_stamp(struct buf *out, int64_t epoch, int zone_minutes)
{
	struct date_civil c;

	date_to_civil(epoch, zone_minutes, &c);
	buf_addf(out, "%04lld%02d%02d%02d%02d", (long long)c.year, c.month, c.day,
		 c.hour, c.minute);
}

/* RFC 5322 reading. */

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* 1 if the n letters at s spell name, in any case. */
static int word_is(const char *s, size_t n, const char *name)
{
	size_t i;

	if (strlen(name) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower(s[i]) != lower(name[i]))
			return 0;
	return 1;
}

/* Skips white space, line breaks and (nested) comments. */
static const char *skip_cfws(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p != '(')
			return p;
		{
			int depth = 0;

			do {
				if (*p == '(')
					depth++;
				else if (*p == ')')
					depth--;
				else if (*p == '\\' && p[1])
					p++;
				p++;
			} while (*p && depth > 0);
		}
	}
}

static size_t span_alpha(const char *p)
{
	size_t n = 0;

	while (is_alpha(p[n]))
		n++;
	return n;
}

/* Reads 1..max digits; -1 if none or more than max. */
static int64_t read_number(const char **pp, int max, int *ndigits)
{
	const char *p = *pp;
	int64_t v = 0;
	int n = 0;

	while (is_digit(*p)) {
		if (++n > max)
			return -1;
		v = v * 10 + (*p++ - '0');
	}
	if (!n)
		return -1;
	*pp = p;
	if (ndigits)
		*ndigits = n;
	return v;
}

static int zone_from_name(const char *s, size_t n)
{
	static const struct { const char *name; int minutes; } zones[] = {
		{ "UT", 0 }, { "UTC", 0 }, { "GMT", 0 },
		{ "EST", -5 * 60 }, { "EDT", -4 * 60 }, { "CST", -6 * 60 }, { "CDT", -5 * 60 },
		{ "MST", -7 * 60 }, { "MDT", -6 * 60 }, { "PST", -8 * 60 }, { "PDT", -7 * 60 },
	};
	size_t i;

	for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		if (word_is(s, n, zones[i].name))
			return zones[i].minutes;
	/* Military letters and unknown names mean "-0000" (RFC 5322 §4.3). */
	return 0;
}

int date_parse_rfc5322(const char *s, int64_t *epoch, int *zone_minutes)
{
	const char *p = skip_cfws(s);
	struct date_civil c;
	int64_t v;
	int nd, zone = 0, i;
	size_t n;

	if ((n = span_alpha(p))) {
		for (i = 0; i < 7; i++)
			if (word_is(p, n, day_names[i]) || word_is(p, n, day_full[i]))
				break;
		if (i == 7)
			return -1;
		p = skip_cfws(p + n);
		if (*p == ',')
			p = skip_cfws(p + 1);
	}

	if ((v = read_number(&p, 2, NULL)) < 0)
		return -1;
	c.day = (int)v;
	p = skip_cfws(p);
	n = span_alpha(p);
	for (i = 0; i < 12; i++)
		if (word_is(p, n, month_names[i]) || word_is(p, n, month_full[i]))
			break;
	if (i == 12)
		return -1;
	c.month = i + 1;
	p = skip_cfws(p + n);
	if ((v = read_number(&p, 4, &nd)) < 0 || nd == 1)
		return -1;
	if (nd == 2)
		v += v < 50 ? 2000 : 1900;
	else if (nd == 3)
		v += 1900;
	if (v < 1900)
		return -1;
	c.year = v;

	p = skip_cfws(p);
	if ((v = read_number(&p, 2, NULL)) < 0)
		return -1;
	c.hour = (int)v;
	p = skip_cfws(p);
	if (*p != ':')
		return -1;
	p = skip_cfws(p + 1);
	if ((v = read_number(&p, 2, NULL)) < 0)
		return -1;
	c.minute = (int)v;
	c.second = 0;
	p = skip_cfws(p);
	if (*p == ':') {
		p = skip_cfws(p + 1);
		if ((v = read_number(&p, 2, NULL)) < 0)
			return -1;
		c.second = (int)v;
		p = skip_cfws(p);
	}
	if (c.day < 1 || c.day > date_days_in_month(c.year, c.month) ||
	    c.hour > 23 || c.minute > 59 || c.second > 60)
		return -1;

	if (*p == '+' || *p == '-') {
		int hh, mm;

		if ((hh = digits(p + 1, 2)) < 0 || (mm = digits(p + 3, 2)) < 0 ||
		    is_digit(p[5]) || mm > 59)
			return -1;
		zone = (*p == '-' ? -1 : 1) * (hh * 60 + mm);
		p = skip_cfws(p + 5);
		/* "+0800 CST": a redundant name after the offset. */
		if ((n = span_alpha(p)) && n <= 5)
			p = skip_cfws(p + n);
	} else if ((n = span_alpha(p))) {
		zone = zone_from_name(p, n);
		p = skip_cfws(p + n);
	}
	if (*p)
		return -1;
	*epoch = date_from_civil(&c, zone);
	*zone_minutes = zone;
	return 0;
}
