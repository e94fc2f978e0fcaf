#include <string.h>
#include <strings.h>

#include "charset.h"
#include "rfc2045.h"
#include "rfc2047.h"
#include "banned.h"

/* An encoded-word found in a header. */
struct word {
	const char *charset;	/* not NUL-terminated */
	size_t charset_len;
	char enc;		/* 'Q' or 'B' */
	const char *text;
	size_t text_len;
	size_t len;		/* of the whole "=?...?=" */
};

static int is_word_char(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '?';
}

/* Whether s[0..n) starts with an encoded-word; fills w. */
static int word_at(const char *s, size_t n, struct word *w)
{
	size_t i = 2, start;

	if (n < 8 || s[0] != '=' || s[1] != '?')
		return 0;
	for (start = i; i < n && is_word_char((unsigned char)s[i]); i++)
		;
	if (i == start || i - start > 2 * CHARSET_MAX_NAME || i + 2 >= n || s[i] != '?')
		return 0;
	w->charset = s + start;
	w->charset_len = i - start;
	w->enc = (char)(s[i + 1] & ~0x20);
	if ((w->enc != 'Q' && w->enc != 'B') || s[i + 2] != '?')
		return 0;
	for (i += 3, start = i; i < n && is_word_char((unsigned char)s[i]); i++)
		;
	if (i + 1 >= n || s[i] != '?' || s[i + 1] != '=')
		return 0;
	w->text = s + start;
	w->text_len = i - start;
	w->len = i + 2;
	return 1;
}

/*
 * The bytes of w's text, through the transfer decoders: Q is
 * quoted-printable with '_' for a space (§4.2), B is base64.  -1 when B
 * has characters outside its alphabet or a broken end (a stray '=' in Q
 * stays, as the quoted-printable decoder keeps it).
 */
static int word_bytes(const struct word *w, struct buf *raw)
{
	struct buf text = BUF_INIT;
	long bad;
	size_t i;

	if (w->enc == 'B')
		return rfc2045_decode_base64(w->text, w->text_len, raw) ? -1 : 0;
	for (i = 0; i < w->text_len; i++)
		buf_addc(&text, w->text[i] == '_' ? ' ' : w->text[i]);
	bad = rfc2045_decode_qp(text.data, text.len, raw);
	buf_release(&text);
	return bad < 0 ? -1 : 0;
}

/* State of rfc2047_decode(): decoded bytes of adjacent words in one
 * charset are converted together, so a character split between two
 * words comes out whole. */
struct decoder {
	struct buf *out;
	unsigned flags;
	struct buf pending;	/* raw bytes of the last words */
	char charset[2 * CHARSET_MAX_NAME + 1];
	int have_pending;
	struct buf plain;	/* text since the last word */
	int plain_is_space;	/* plain holds only white space */
	int failed;
};

static void flush_pending(struct decoder *d)
{
	if (!d->have_pending)
		return;
	if (charset_to_utf8(d->charset, d->pending.data, d->pending.len, d->out, NULL) < 0)
		d->failed = 1;
	buf_reset(&d->pending);
	d->have_pending = 0;
}

static void flush_plain(struct decoder *d)
{
	if (!d->plain.len)
		return;
	if (d->flags & RFC2047_RAW) {
		if (buf_add(d->out, d->plain.data, d->plain.len))
			d->failed = 1;
	} else if (charset_mixed_to_utf8(d->plain.data, d->plain.len, d->out) < 0) {
		d->failed = 1;
	}
	buf_reset(&d->plain);
	d->plain_is_space = 1;
}

int rfc2047_decode(const char *in, size_t len, unsigned flags, struct buf *out)
{
	struct decoder d = { out, flags, BUF_INIT, "", 0, BUF_INIT, 1, 0 };
	struct buf raw = BUF_INIT;
	char cs[2 * CHARSET_MAX_NAME + 1];
	size_t i = 0;
	int count = 0, last_was_word = 0;

	while (i < len) {
		struct word w;

		if (in[i] == '\r' || in[i] == '\n') {
			i++;
			continue;
		}
		if (word_at(in + i, len - i, &w)) {
			memcpy(cs, w.charset, w.charset_len);
			cs[w.charset_len] = '\0';
			buf_reset(&raw);
			if (charset_known(cs) && !word_bytes(&w, &raw)) {
				if (last_was_word && d.plain_is_space) {
					buf_reset(&d.plain);	/* RFC 2047 §6.2 */
					if (d.have_pending && strcasecmp(d.charset, cs))
						flush_pending(&d);
				} else {
					flush_pending(&d);
					flush_plain(&d);
				}
				memcpy(d.charset, cs, w.charset_len + 1);
				buf_add(&d.pending, raw.data, raw.len);
				d.have_pending = 1;
				last_was_word = 1;
				count++;
				i += w.len;
				continue;
			}
		}
		if (in[i] != ' ' && in[i] != '\t') {
			flush_pending(&d);
			d.plain_is_space = 0;
			last_was_word = 0;
		}
		buf_addc(&d.plain, in[i++]);
	}
	flush_pending(&d);
	flush_plain(&d);
	buf_release(&raw);
	buf_release(&d.pending);
	buf_release(&d.plain);
	return d.failed ? -1 : count;
}
