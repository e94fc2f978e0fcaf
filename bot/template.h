#ifndef PERFBOT_TEMPLATE_H
#define PERFBOT_TEMPLATE_H

/*
 * perfbot's mustache engine: templates are parsed once into a flat node
 * tree and rendered any number of times against a struct value.
 *
 * The language is mustache as the official spec defines it (modules
 * comments, delimiters, interpolation, inverted, partials, sections and
 * ~inheritance): {{x}}, {{{x}}}, {{&x}}, {{#x}}, {{^x}}, {{! }}, {{> p}},
 * {{=<% %>=}}, dotted names, {{.}}, parents {{< p}}...{{/p}} and blocks
 * {{$b}}...{{/b}}, with the spec's standalone-line and indentation rules.
 * No lambdas, no dynamic names.
 *
 * Two modes, chosen per render (struct template_options):
 *   - strict (perfbot's own, the default): an unknown name in {{x}} or
 *     {{#x}} and a missing partial or parent are errors naming the
 *     template and line ("report.txt:12: unknown name 'foo.bar'"), and
 *     nothing is HTML-escaped.  {{^x}} on an unknown name renders its
 *     content: that is how a template tests for an optional key.
 *   - lenient + html_escape: the spec's rules (missing names and partials
 *     render empty; {{x}} escapes & " < >), for `perfbot template` and
 *     the spec suite.
 *
 * Values print as value_format() shows them: strings as they are, numbers
 * by value_format_number(), true/false, null as nothing, arrays and
 * objects as one-line JSON.  Truthiness is value_truthy().
 *
 * Templates are untrusted text (an operator's file, a fuzzer's input):
 * everything below is bounded by the limits that follow, and reaching one
 * is an error, never a cut.
 */

#include <stddef.h>

#include "buf.h"
#include "value.h"

/* Bytes of template text. */
#define TEMPLATE_MAX_SIZE (1u << 20)
/* Sections, inverted sections, parents and blocks nested in one template. */
#define TEMPLATE_MAX_NESTING 64
/* Partials, parents and overridden blocks expanded inside each other
 * while rendering (recursive partials end here at the latest). */
#define TEMPLATE_MAX_DEPTH 64
/* Bytes one render may append to its output. */
#define TEMPLATE_MAX_OUTPUT (16u << 20)
/* Nodes one render may visit: bounds the time of sections nested over
 * lists even when they print nothing. */
#define TEMPLATE_MAX_STEPS (1u << 24)
/* Bytes of a template name, and of a delimiter set with {{= =}}. */
#define TEMPLATE_MAX_NAME 200
#define TEMPLATE_MAX_DELIMITER 16

struct template;	/* one parsed template: opaque, immutable once parsed */
struct template_set;	/* a folder of templates, each loaded and parsed once */

/*
 * How a set's files are named and escaped (template_set_mode()):
 * TEMPLATE_ESCAPE_NONE is the mail templates' (nothing escaped, so mails
 * stay byte-exact); TEMPLATE_ESCAPE_HTML, the site's (perfbot-site(1)),
 * sends every {{x}} through html_text() (html.h: & < > " ' escaped,
 * control and bidirectional characters shown as visible escapes), in
 * strict and lenient renders alike; {{{x}}} and {{&x}} stay raw, for
 * markup perfbot made itself (a chart).
 */
enum template_escape { TEMPLATE_ESCAPE_NONE, TEMPLATE_ESCAPE_HTML };

struct template_options {
	int lenient;		/* missing names and partials render empty */
	int html_escape;	/* {{x}} escapes & " < > (not {{{x}}}, {{&x}}) */
	size_t max_output;	/* bytes the render may append, instead of
				   TEMPLATE_MAX_OUTPUT (0: that) */
};

/*
 * A template name (for partials, parents and template_set_get()) is
 * [A-Za-z0-9._-]+, at most TEMPLATE_MAX_NAME bytes, not starting with '.':
 * it names the file NAME.txt in the set's folder and can never leave it.
 * Returns 1 if name is one.
 */
int template_name_valid(const char *name);

/*
 * Parses len bytes of text (untrusted; NUL bytes are plain text).  name is
 * used only in messages ("NAME:LINE: ..."), typically the file's path.
 * On success *out is a new template the caller frees with template_free().
 * -1 with a message naming name and the line for: an unclosed tag,
 * section or parent, a closing tag that matches nothing or the wrong
 * section, an empty or malformed name, an invalid partial or parent name,
 * a bad {{= =}} tag, nesting deeper than TEMPLATE_MAX_NESTING, and text
 * longer than TEMPLATE_MAX_SIZE.
 */
int template_parse(const char *name, const char *text, size_t len,
		   struct template **out, struct buf *err);
void template_free(struct template *t);
/* The name given to template_parse() (or the set's file path). */
const char *template_name(const struct template *t);

/*
 * A set of templates that partials and parents are looked up in.  Template
 * NAME is, first, one added with template_set_add(), else the file
 * DIR/NAME.txt of the first of the set's folders that has one (dir may be
 * NULL: then only added templates exist, until template_set_add_dir()
 * adds a folder).  Folders layer: a lab's folder holds only what it
 * changes, the shipped folder (added last) the rest.  Each is
 * read and parsed once, on first use, and kept until template_set_free();
 * a file found missing is remembered as missing.  The set owns its
 * templates; pointers to them stay valid until template_set_free().
 * Several threads may render from one set at once (a first use loads
 * under the set's lock); adding templates or folders, changing the mode
 * and freeing it may not run beside them.
 */
struct template_set *template_set_new(const char *dir);
/* Sets the set's file suffix (".txt" by default; "" when the names carry
 * their own, as "report.html" does) and its escaping.  suffix is kept, not
 * copied (a string constant).  Call it before the first lookup. */
void template_set_mode(struct template_set *set, const char *suffix, enum template_escape e);
/* Adds a folder, searched after those given before it (a template NAME is
 * DIR/NAME.txt of the first folder that has that file). */
void template_set_add_dir(struct template_set *set, const char *dir);
void template_set_free(struct template_set *set);

/*
 * Adds an in-memory template NAME (copied; messages call it NAME).  -1 with
 * a message for an invalid name, a name the set already holds, or a parse
 * error.  Add templates before rendering with them.
 */
int template_set_add(struct template_set *set, const char *name,
		     const char *text, size_t len, struct buf *err);

/*
 * Looks up template NAME, reading and parsing DIR/NAME.txt the first time.
 * *out belongs to the set.  -1 with a message for an invalid name, a
 * template that does not exist, cannot be read or does not parse (the
 * message names the file and line).
 */
int template_set_get(struct template_set *set, const char *name,
		     const struct template **out, struct buf *err);

/* The same, but a template that does not exist is 0 with *out NULL (to
 * take another when one is missing); -1 only for an invalid name or a
 * file that cannot be read or does not parse. */
int template_set_lookup(struct template_set *set, const char *name,
			const struct template **out, struct buf *err);

/*
 * Loads template NAME and every partial and parent it names, and theirs,
 * as rendering would (a partial inside a section that the data leaves out
 * is checked too): 0 when all exist and parse, else -1 with the message
 * rendering would give.  For `perfbot check`, which has no data to render.
 */
int template_set_check(struct template_set *set, const char *name, struct buf *err);

/*
 * Renders t with data (the root of the context stack; NULL renders as
 * null), appending to out.  Partials and parents come from set (may be
 * NULL: none exist); t need not belong to set.  opt may be NULL (strict,
 * no escaping).
 *
 * -1 with a message naming the template and line for: an unknown name or
 * a missing partial or parent in strict mode, a partial that cannot be
 * read or parsed (in either mode), and each limit above (output longer
 * than TEMPLATE_MAX_OUTPUT, or opt's max_output, or out->limit, includes
 * deeper than TEMPLATE_MAX_DEPTH, more than TEMPLATE_MAX_STEPS steps).  On
 * error out is left as it was.
 */
int template_render(struct template_set *set, const struct template *t,
		    const struct value *data, const struct template_options *opt,
		    struct buf *out, struct buf *err);

#endif
