#ifndef PERFBOT_SECRET_H
#define PERFBOT_SECRET_H

/*
 * Passwords (smtp.passwordFile, the IMAP password) are read from a file
 * of their own, never from the configuration, and only when nobody else
 * can read it: a regular file (not a link), owned by the user perfbot
 * runs as, mode 0600 or stricter.  The first line is the password
 * (trailing CR/LF removed; at most SECRET_MAX bytes, no NUL, CR or LF
 * inside).
 */

#include "buf.h"

#define SECRET_MAX 1024

/* *out: the password (malloc'd; the caller wipes and frees it with
 * secret_free()).  -1 with a message naming the file and saying how to
 * fix it (e.g. "chmod 600 FILE"). */
int secret_read_file(const char *path, char **out, struct buf *err);
void secret_free(char *s);

#endif
