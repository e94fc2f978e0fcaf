#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "charset.h"
#include "header.h"
#include "banned.h"

/* Windows-1252 0x80..0x9f; 0 marks the five bytes it leaves undefined. */
static const unsigned short cp1252_high[32] = {
	0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
	0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
};

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

enum kind { K_UNKNOWN, K_UTF8, K_ASCII, K_CP1252, K_ICONV };

static void add_code_point(struct buf *out, unsigned cp)
{
	char u[4];

	if (cp < 0x80) {
		buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		buf_add(out, u, 2);
	} else {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		buf_add(out, u, 3);
	}
}

int charset_is_utf8(const char *s, size_t len)
{
	size_t i = 0, l;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			if (!s[i])
				return 0;
			i++;
			continue;
		}
		if (!(l = header_utf8_char(s + i, len - i)))
			return 0;
		i += l;
	}
	return 1;
}

long charset_repair_utf8(const char *s, size_t len, struct buf *out)
{
	size_t i = 0, start = 0, l;
	long bad = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c && c < 0x80) {
			i++;
			continue;
		}
		if (c && (l = header_utf8_char(s + i, len - i))) {
			i += l;
			continue;
		}
		if (buf_add(out, s + start, i - start) || buf_adds(out, replacement))
			return -1;
		bad++;
		start = ++i;
	}
	if (buf_add(out, s + start, i - start))
		return -1;
	return bad;
}

/* Windows-1252 (and so ISO-8859-1 and US-ASCII) to UTF-8: 1 when a byte
 * it does not define was replaced. */
static int cp1252_to_utf8(const char *s, size_t len, struct buf *out)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!c) {
			buf_adds(out, replacement);
			bad = 1;
		} else if (c < 0x80) {
			buf_addc(out, (char)c);
		} else if (c < 0xa0) {
			if (cp1252_high[c - 0x80]) {
				add_code_point(out, cp1252_high[c - 0x80]);
			} else {
				buf_adds(out, replacement);
				bad = 1;
			}
		} else {
			add_code_point(out, c);
		}
	}
	return bad;
}

/*
 * The canonical name of charset for the checks below and for iconv, in
 * name (lowercase, the "*language" suffix cut); 0 when it is not a name
 * we may pass on.
 */
static int canonical_name(const char *charset, char name[CHARSET_MAX_NAME + 1])
{
	size_t i, n = strcspn(charset, "*");

	if (!n || n > CHARSET_MAX_NAME)
		return 0;
	for (i = 0; i < n; i++) {
		char c = charset[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("._:+()-", c)))
			return 0;
		name[i] = c;
	}
	name[n] = '\0';
	return 1;
}

/* Names iconv spells differently, or that mail uses for a superset. */
static const char *iconv_alias(const char *name)
{
	static const struct { const char *mail, *iconv; } aliases[] = {
		{ "gb2312", "GB18030" }, { "gbk", "GB18030" }, { "x-gbk", "GB18030" },
		{ "ks_c_5601-1987", "CP949" }, { "ks_c_5601", "CP949" }, { "euc-kr", "CP949" },
		{ "iso-8859-8-i", "ISO-8859-8" }, { "iso-8859-6-i", "ISO-8859-6" },
		{ "x-sjis", "SHIFT_JIS" }, { "shift-jis", "SHIFT_JIS" },
		{ "x-mac-roman", "MACINTOSH" }, { "macintosh", "MACINTOSH" },
		{ "tis-620", "TIS-620" }, { "windows-874", "CP874" },
	};
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].mail))
			return aliases[i].iconv;
	return name;
}

static enum kind kind_of(const char *name)
{
	static const struct { const char *name; enum kind kind; } own[] = {
		{ "utf-8", K_UTF8 }, { "utf8", K_UTF8 },
		{ "us-ascii", K_ASCII }, { "ascii", K_ASCII }, { "ansi_x3.4-1968", K_ASCII },
		{ "us", K_ASCII },
		{ "iso-8859-1", K_CP1252 }, { "iso8859-1", K_CP1252 }, { "iso_8859-1", K_CP1252 },
		{ "latin1", K_CP1252 }, { "latin-1", K_CP1252 }, { "l1", K_CP1252 },
		{ "windows-1252", K_CP1252 }, { "cp1252", K_CP1252 }, { "x-cp1252", K_CP1252 },
		/* labels that say "we do not know" */
		{ "unknown-8bit", K_UNKNOWN }, { "x-unknown", K_UNKNOWN }, { "unknown", K_UNKNOWN },
		{ "x-user-defined", K_UNKNOWN }, { "default", K_UNKNOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i].name))
			return own[i].kind;
	return K_ICONV;
}

/*
 * A few iconv descriptors kept open: iconv_open() reads glibc's module
 * configuration and costs far more than converting a mail.  The cache
 * lives for the process; a forked child gets a copy, which is harmless.
 */
#define ICONV_CACHE 6
static struct {
	char name[CHARSET_MAX_NAME + 1];
	iconv_t cd;	/* (iconv_t)-1: this name is unknown to iconv */
	unsigned long used;
} iconv_cache[ICONV_CACHE];
static unsigned long iconv_clock;

static iconv_t iconv_get(const char *name)
{
	size_t i, victim = 0;

	for (i = 0; i < ICONV_CACHE; i++) {
		if (iconv_cache[i].name[0] && !strcmp(iconv_cache[i].name, name)) {
			iconv_cache[i].used = ++iconv_clock;
			return iconv_cache[i].cd;
		}
		if (iconv_cache[i].used < iconv_cache[victim].used)
			victim = i;
	}
	if (iconv_cache[victim].name[0] && iconv_cache[victim].cd != (iconv_t)-1)
		iconv_close(iconv_cache[victim].cd);
	memcpy(iconv_cache[victim].name, name, strlen(name) + 1);
	iconv_cache[victim].cd = iconv_open("UTF-8", iconv_alias(name));
	iconv_cache[victim].used = ++iconv_clock;
	return iconv_cache[victim].cd;
}

/* in through cd into out (raw, repaired by the caller); 1 when bytes were
 * invalid or incomplete and became U+FFFD. */
static int iconv_convert(iconv_t cd, const char *in, size_t len, struct buf *out)
{
	char *inp = (char *)in;
	size_t inleft = len;
	int bad = 0, flushing = 0;

	iconv(cd, NULL, NULL, NULL, NULL);
	for (;;) {
		char *outp;
		size_t outleft, r;

		buf_grow(out, 4096 + inleft);
		outp = out->data + out->len;
		outleft = out->cap - out->len - 1;
		if (flushing)
			r = iconv(cd, NULL, NULL, &outp, &outleft);
		else
			r = iconv(cd, &inp, &inleft, &outp, &outleft);
		out->len = (size_t)(outp - out->data);
		out->data[out->len] = '\0';
		if (r != (size_t)-1) {
			if (flushing)
				break;
			flushing = 1;
			continue;
		}
		if (errno == E2BIG)
			continue;
		bad = 1;
		buf_adds(out, replacement);
		if (errno != EILSEQ || !inleft)
			break;	/* EINVAL: an incomplete sequence at the end */
		inp++;
		inleft--;
	}
	return bad;
}

/* The fall-back: UTF-8 when valid, else Windows-1252. */
static void fallback(const char *in, size_t len, struct buf *out, const char **used)
{
	if (charset_is_utf8(in, len)) {
		buf_add(out, in, len);
		*used = "utf-8";
	} else {
		cp1252_to_utf8(in, len, out);
		*used = "windows-1252";
	}
}

static int has_8bit(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 1;
	return 0;
}

int charset_known(const char *charset)
{
	char name[CHARSET_MAX_NAME + 1];
	enum kind k;

	if (!charset || !canonical_name(charset, name))
		return 0;
	k = kind_of(name);
	if (k == K_ICONV)
		return iconv_get(name) != (iconv_t)-1;
	return k != K_UNKNOWN;
}

int charset_to_utf8(const char *charset, const char *in, size_t len, struct buf *out,
		    const char **used)
{
	/* Converted into tmp without a limit, then checked into out, so that
	 * out->limit is honoured in one place and NULs are caught. */
	struct buf tmp = BUF_INIT;
	char name[CHARSET_MAX_NAME + 1];
	const char *dummy;
	enum kind k = K_UNKNOWN;
	int outcome = CHARSET_OK;
	iconv_t cd = (iconv_t)-1;
	long bad;

	if (!used)
		used = &dummy;
	if (charset && canonical_name(charset, name))
		k = kind_of(name);
	if (k == K_ICONV && (cd = iconv_get(name)) == (iconv_t)-1)
		k = K_UNKNOWN;
	if (k == K_ASCII && has_8bit(in, len))
		k = K_UNKNOWN;	/* mislabelled: let the fall-back guess */
	switch (k) {
	case K_UNKNOWN:
		fallback(in, len, &tmp, used);
		outcome = CHARSET_FALLBACK;
		break;
	case K_UTF8:
	case K_ASCII:
		buf_add(&tmp, in, len);
		*used = k == K_UTF8 ? "utf-8" : "us-ascii";
		break;
	case K_CP1252:
		if (cp1252_to_utf8(in, len, &tmp))
			outcome = CHARSET_REPAIRED;
		*used = "windows-1252";
		break;
	case K_ICONV:
		if (iconv_convert(cd, in, len, &tmp))
			outcome = CHARSET_REPAIRED;
		*used = charset;
		break;
	}
	bad = charset_repair_utf8(tmp.data, tmp.len, out);
	buf_release(&tmp);
	if (bad < 0)
		return -1;
	if (bad && outcome == CHARSET_OK)
		outcome = CHARSET_REPAIRED;
	return outcome;
}

long charset_mixed_to_utf8(const char *s, size_t len, struct buf *out)
{
	struct buf tmp = BUF_INIT;
	size_t i = 0, l;
	long bad = 0;

	while (i < len) {
		if ((unsigned char)s[i] >= 0x80 && (l = header_utf8_char(s + i, len - i))) {
			buf_add(&tmp, s + i, l);
			i += l;
		} else {
			bad += cp1252_to_utf8(s + i, 1, &tmp);
			i++;
		}
	}
	/* tmp is valid UTF-8: this only copies it, within out->limit */
	if (charset_repair_utf8(tmp.data, tmp.len, out) < 0)
		bad = -1;
	buf_release(&tmp);
	return bad;
}
