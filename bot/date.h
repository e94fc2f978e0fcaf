#ifndef PERFBOT_DATE_H
#define PERFBOT_DATE_H

/*
 * Dates and times as plain arithmetic: no gmtime/localtime (banned), no
 * TZ environment, no clock.  A time is an int64_t count of seconds since
 * 1970-01-01 00:00:00 UTC ("epoch", leap seconds not counted); a time zone
 * is a fixed offset east of UTC in minutes (+0530 is 330, -0330 is -210).
 * Civil dates use the proleptic Gregorian calendar (Howard Hinnant's
 * days-from-civil algorithm).
 *
 * Everything here is pure: callers pass the time and the zone in.
 * The formatters accept any epoch and any zone without undefined
 * behaviour; the output is only meaningful for years 0000..9999 and
 * zones within +-99:59.
 */

#include <stdint.h>

#include "buf.h"

/* Zones perfbot accepts in its configuration: -1400 .. +1400. */
#define DATE_ZONE_MAX_MINUTES (14 * 60)
/* Years date_parse_local() accepts. */
#define DATE_LOCAL_YEAR_MIN 1970
#define DATE_LOCAL_YEAR_MAX 9999

/* A broken-down civil time.  Plain data. */
struct date_civil {
	int64_t year;	/* e.g. 2026 */
	int month;	/* 1..12 */
	int day;	/* 1..31 */
	int hour;	/* 0..23 */
	int minute;	/* 0..59 */
	int second;	/* 0..59 (60 only as read by date_parse_rfc5322) */
	int weekday;	/* 0 = Sunday .. 6 = Saturday; set by date_to_civil() */
};

/* 1 if year is a Gregorian leap year. */
int date_is_leap(int64_t year);
/* Days in month (1..12) of year; 0 for a month out of range. */
int date_days_in_month(int64_t year, int month);

/* The civil time at epoch in the zone, weekday included.  Any input. */
void date_to_civil(int64_t epoch, int zone_minutes, struct date_civil *out);
/* The calendar day at epoch in the zone, counted from 1970-01-01 (day 0;
 * days before it negative).  Any input. */
int64_t date_day_number(int64_t epoch, int zone_minutes);
/*
 * The epoch of civil time c read in the zone; c->weekday is ignored.
 * Fields must be in their ranges (second 60 counts as the next minute's
 * 0) and the year within +-10^9; nothing is checked here.
 */
int64_t date_from_civil(const struct date_civil *c, int zone_minutes);

/*
 * Reads a configured time zone: exactly "+hhmm" or "-hhmm" (hh 00..14,
 * mm 00..59, at most 14:00 either way) or "UTC".  Trusted-but-checked
 * input (configuration, command line).  0 and *minutes set, or -1 with a
 * message quoting s.
 */
int date_parse_zone(const char *s, int *minutes, struct buf *err);

/*
 * Reads exactly "YYYY-MM-DD hh:mm:ss" (two digits everywhere but the
 * year, no leap second) as a civil time in the zone.  Years
 * DATE_LOCAL_YEAR_MIN..DATE_LOCAL_YEAR_MAX; months, days (leap years
 * counted), hours 0..23, minutes and seconds 0..59 are checked.  0 and
 * *epoch set, or -1 with a message quoting s.
 */
int date_parse_local(const char *s, int zone_minutes, int64_t *epoch, struct buf *err);

/*
 * Reads a date or time from the command line (perfbot track --since):
 * "YYYY-MM-DD" (midnight UTC), or ISO 8601's "YYYY-MM-DDThh:mm[:ss]"
 * ('T' or one space between), with fractions of a second ignored and an
 * optional zone, "Z" or "+hh:mm", "+hhmm", "+hh" (or '-'); a time without
 * a zone is UTC, as commit dates are compared.  Ranges as
 * date_parse_local().  0 and *epoch set, or -1 with a message quoting s.
 */
int date_parse_iso8601(const char *s, int64_t *epoch, struct buf *err);

/*
 * Reads the body of a mail Date: field (untrusted).  Tolerant, after
 * RFC 5322 §3.3 and its obsolete syntax §4.3:
 *   - optional day name (checked to be one, not checked against the
 *     date) with an optional comma; month names in any case, also
 *     spelled out;
 *   - 2-digit years are 1950..2049 (00..49 -> 20xx), 3-digit years add
 *     1900; years 1900..9999;
 *   - seconds may be missing (0) and may be 60 (a leap second, read as
 *     the next minute);
 *   - zones: +hhmm/-hhmm (hh 00..99, mm 00..59); UT, GMT, EST, EDT, CST,
 *     CDT, MST, MDT, PST, PDT; military letters, other names and a
 *     missing zone are read as -0000 (*zone_minutes 0, epoch as if UTC);
 *     a zone name after a numeric zone ("+0800 CST") is ignored;
 *   - comments in parentheses (nested, with quoted pairs), folding
 *     whitespace (CR, LF, TAB, space) anywhere between tokens.
 * Returns 0 with *epoch and *zone_minutes set, or -1 when s is not a
 * readable date (then neither is written).  No message: a bad Date: in
 * incoming mail is not an error worth reporting.
 */
int date_parse_rfc5322(const char *s, int64_t *epoch, int *zone_minutes);

/* Appends "Mon, 9 Mar 2026 13:50:58 +0800" (day without leading zero). */
void date_format_rfc5322(struct buf *out, int64_t epoch, int zone_minutes);
/* Appends "2026-03-11T19:04:00Z". */
void date_format_rfc3339_utc(struct buf *out, int64_t epoch);
/* Appends "YYYYMMDDhhmm" in the zone (the date part of a Message-ID). */
void date_format_stamp(struct buf *out, int64_t epoch, int zone_minutes);

#endif
