#ifndef PERFBOT_PROBLEM_H
#define PERFBOT_PROBLEM_H

/*
 * The oddities a reader of untrusted input notes instead of failing
 * (mail.h, reply.h, and the parsers under them): a list of lowercase
 * sentences, each valid UTF-8 without NUL (bad bytes become U+FFFD), so
 * that they go into JSON as they are.  A list holds at most max of them;
 * one more, the sentence more, says that the rest were not listed.
 *
 * struct problems is a handle on the owner's array (struct mail's
 * problems and nr_problems, say), so that the parsers below an owner
 * append to it directly.
 */

#include <stdarg.h>
#include <stddef.h>

struct problems {
	char ***v;		/* the owner's array of malloc'd strings */
	size_t *nr;		/* and its length */
	size_t max;		/* sentences listed at most (then more) */
	const char *more;	/* "more problems were not listed" */
};

/* Appends one sentence (printf format); accepts p NULL (the problem is
 * not wanted). */
void problem_add(const struct problems *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void problem_vadd(const struct problems *p, const char *fmt, va_list ap);

/* Frees the n strings of v and v itself. */
void problems_free(char **v, size_t n);

#endif
