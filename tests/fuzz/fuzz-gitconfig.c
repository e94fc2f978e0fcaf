/*
 * libFuzzer target for the git-config reader (gitconfig_parse()).  Besides
 * crashes, leaks and undefined behaviour, it checks gitconfig.h's contract
 * and aborts when it is broken:
 *   - every name is "section.key" or "section.subsection.key", with a
 *     lowercase section that has no blank and a key of a letter, then
 *     letters, digits and '-', lowercase;
 *   - a failure says which file (and a bad line which line).
 * include.path is refused by the callback, so that no file is read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

static int check_entry(const char *name, const char *value, void *ctx, struct buf *err)
{
	const char *dot = strchr(name, '.'), *key = strrchr(name, '.');
	const char *p;

	(void)value;
	(void)ctx;
	check(dot && dot > name && key);
	for (p = name; p < dot; p++)
		check(!(*p >= 'A' && *p <= 'Z') && *p != ' ' && *p != '\t' && *p != '\n');
	key++;
	check((*key >= 'a' && *key <= 'z'));
	for (p = key; *p; p++)
		check((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-');
	if (!strcmp(name, "include.path"))
		return err_set(err, "include.path: not followed here");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT;

	if (gitconfig_parse((const char *)data, size, "fuzz.conf", check_entry, NULL, &err) < 0)
		check(!strncmp(err.data, "fuzz.conf: ", 11));
	else
		check(err.len == 0);
	buf_release(&err);
	return 0;
}
