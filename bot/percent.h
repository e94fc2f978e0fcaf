#ifndef PERFBOT_PERCENT_H
#define PERFBOT_PERCENT_H

/*
 * %XX escapes (RFC 3986 §2.1 in URLs, RFC 2231 §4 in MIME parameters):
 * the one decoder, for IMAP URLs, RFC 2231 values and the Message-IDs in
 * fix trailers' links.  Pure; the input is untrusted and may hold any
 * byte.
 */

#include <stddef.h>

#include "buf.h"

/* The value of a hex digit (either case), else -1. */
int percent_hex(int c);

/*
 * Appends s[0..n) to out with each %XX turned into its byte.  A '%' not
 * followed by two hex digits is copied as it is, or, with strict, ends
 * the decoding with -1 (out then holds what came before it).  -1 also when
 * out->limit is reached; else 0.
 */
int percent_decode(const char *s, size_t n, int strict, struct buf *out);

#endif
