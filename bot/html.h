#ifndef PERFBOT_HTML_H
#define PERFBOT_HTML_H

/*
 * The web site's escapers: one per context a piece of outside text can
 * land in (element text, a quoted attribute value, one URL component).
 * Pure: bytes in, bytes appended to out.  The input is untrusted and may
 * hold any byte, NUL included (len says where it ends); the output is
 * valid UTF-8, valid HTML5 and valid XML 1.0 text, so the Atom feed uses
 * the same functions as the pages.
 *
 * html_text() and html_attr() write:
 *   - & < > " ' as &amp; &lt; &gt; &quot; &#39; (entities that HTML5 and
 *     XML 1.0 both define);
 *   - TAB and LF as they are in html_text() only;
 *   - every other character a browser would act on without showing it, or
 *     that XML 1.0 or HTML5 forbids, as a visible escape, itself escaped:
 *     "<U+202E>" is written "&lt;U+202E&gt;".  These are: the C0 controls
 *     (U+0000-U+001F, CR included), DEL and the C1 controls (U+007F-
 *     U+009F), the bidirectional controls (U+061C, U+200E, U+200F,
 *     U+202A-U+202E, U+2066-U+2069) and the noncharacters (U+FDD0-U+FDEF
 *     and the last two code points of every plane, U+FFFE and U+FFFF
 *     among them).  They are never written raw nor as character
 *     references, since a browser applies a bidi control even when it
 *     comes as &#x202E;;
 *   - each byte that is not part of well-formed UTF-8 (a stray
 *     continuation byte, a truncated sequence, an overlong form, a
 *     surrogate U+D800-U+DFFF, anything above U+10FFFF, the bytes C0, C1
 *     and F5-FF) as "<0xFF>" (escaped the same way), one per byte, and
 *     the decoding goes on at the next byte;
 *   - everything else (ASCII letters and punctuation, well-formed 2-, 3-
 *     and 4-byte characters) as it came.
 *
 * html_attr() is for a value between double or single quotes; it writes
 * TAB and LF as visible escapes too, so that an attribute's value is one
 * line.  Neither function makes a URL safe: a link's target is built from
 * html_url_component() pieces and perfbot's own fixed parts.
 *
 * html_url_component() percent-encodes (%XX, upper-case hex) every byte
 * but RFC 3986's unreserved characters (A-Z a-z 0-9 - . _ ~), so one
 * Message-ID or name becomes one path segment or query value: '/', '?',
 * '#', ':', '%', '&', quotes and spaces never survive.  Its output holds
 * only those unreserved characters and '%', so it may go into an
 * attribute without html_attr().  One trap it cannot close: a path
 * segment that is exactly "." or ".." stays a dot-segment (browsers, per
 * the WHATWG URL standard, read "%2e%2e" as ".." too), so a caller putting
 * untrusted text in a path rejects those two or puts them after a prefix.
 *
 * out must carry no size cap (out->limit 0), or room under it for
 * HTML_ESCAPE_MAX bytes a byte of input: appends then cannot fail, which
 * is why these return nothing.
 */

#include <stddef.h>

#include "buf.h"

/* The most bytes html_text() or html_attr() write for one byte of input:
 * a control byte is "&lt;U+0001&gt;" (html_url_component(): 3). */
#define HTML_ESCAPE_MAX 14

/* Element text (HTML) and character data (XML). */
void html_text(struct buf *out, const char *s, size_t len);

/* A quoted attribute value (either quote). */
void html_attr(struct buf *out, const char *s, size_t len);

/* One URL path segment or query value. */
void html_url_component(struct buf *out, const char *s, size_t len);

#endif
