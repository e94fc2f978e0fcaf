/*
 * libFuzzer target for bot/site-cache.c: site_cache_read() on a cache
 * file made from the input.  The records' bodies are the input's bytes,
 * each put under a head with its length and the checksum of its bytes
 * (a checksum the input guessed would stop every run at the first
 * record), so that the fields' reader (get_piece() and the D and C
 * records) sees anything.  The input: a byte per record for its letter
 * ('P', 'D', 'C' or another), two for its length, then its body; a last
 * byte, when odd, cuts the file short inside its last record.  Besides
 * crashes and undefined behaviour it checks site-cache.c's contracts:
 *   - 1 or 0, and 0 leaves the cache empty;
 *   - on 1: the pieces in increasing number, each string (but the ones a
 *     piece may lack) there and ended by its NUL inside the mapping, every
 *     count at most what the file could hold, the last run's end inside
 *     the file.
 * FUZZ_SITE_CACHE_SHOW=1 prints what each input reads as (a seed should
 * read as a whole cache: "read 1: 12 pieces").
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "buf.h"
#include "site.h"

#define check(ok) check_at((ok), __LINE__)

static void check_at(int ok, int line)
{
	if (!ok) {
		fprintf(stderr, "fuzz-site-cache.c:%d: contract broken\n", line);
		abort();
	}
}

static char top[PATH_MAX];		/* STATE (with cache/) and the site */

static void put_le(struct buf *b, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_addc(b, (char)(v >> (8 * i)));
}

static void put_str(struct buf *b, const char *s)
{
	put_le(b, strlen(s), 4);
	buf_adds(b, s);
	buf_addc(b, '\0');
}

/* s is a string of the mapping [map, map + size), NUL-ended there. */
static void check_str(const struct site_cache *k, const char *s, int may_lack)
{
	if (!s) {
		check(may_lack);
		return;
	}
	check(s >= k->map && s < k->map + k->size);
	check(memchr(s, '\0', (size_t)(k->map + k->size - s)) != NULL);
}

static void check_piece(const struct site_cache *k, const struct site_piece *p)
{
	size_t i;

	check(p->borrowed);
	check_str(k, p->family, 0);
	check_str(k, p->tree, 0);
	check_str(k, p->state, 0);
	check_str(k, p->subject, 0);
	check(p->subsystems.nr <= k->size && p->lists.nr <= k->size);
	for (i = 0; i < p->subsystems.nr; i++)
		check_str(k, p->subsystems.v[i], 0);
	for (i = 0; i < p->lists.nr; i++)
		check_str(k, p->lists.v[i], 0);
	for (i = 0; i < SITE_ROOTS; i++) {
		check_str(k, p->row[i], 1);
		check(!p->row[i] || strlen(p->row[i]) <= p->row_len[i]);
	}
	check(p->nr_entries <= k->size && p->nr_json <= k->size);
	for (i = 0; i < p->nr_entries; i++) {
		const struct site_entry *e = &p->entries[i];

		check(e->kind >= 0 && e->kind <= 3);
		check_str(k, e->urn, 0);
		check_str(k, e->title, 0);
		check_str(k, e->posted_subject, e->kind != 2);
		check_str(k, e->posted_version, e->kind != 2);
		check_str(k, e->posted_author, e->kind != 2);
		check_str(k, e->posted_evidence, e->kind != 2);
		check_str(k, e->posted_mid, e->kind != 2);
		check_str(k, e->verdict, e->kind != 3);
	}
	for (i = 0; i < p->nr_json; i++) {
		check_str(k, p->json[i].text, 0);
		check(p->json[i].text + p->json[i].len < k->map + k->size);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX + 32];

	(void)argc;
	(void)argv;
	snprintf(top, sizeof(top), "%s/fuzz-site-cache.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(top))
		abort();
	snprintf(path, sizeof(path), "%s/cache", top);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/site", top);
	mkdir(path, 0755);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char kinds[] = "PDCX";
	struct buf file = BUF_INIT, site = BUF_INIT, path = BUF_INIT, id = BUF_INIT;
	struct site_cache k;
	size_t i = 0, cut = 0;
	int ok, fd;

	buf_addf(&site, "%s/site", top);
	buf_addf(&path, "%s/cache/site.cache", top);
	buf_adds(&file, "perfbot-site-cache 7\n");
	put_str(&file, "salt");
	site_cache_folder(&id, site.data);
	put_str(&file, id.data);
	if (size && (data[size - 1] & 1))
		cut = 1 + data[size - 1] / 2;
	while (i + 3 <= size) {
		size_t len = (size_t)data[i + 1] | (size_t)data[i + 2] << 8;
		char kind = kinds[data[i] % 4];

		i += 3;
		len = len < size - i ? len : size - i;
		buf_addc(&file, kind);
		put_le(&file, len, 8);
		put_le(&file, XXH3_64bits(data + i, len), 8);
		buf_add(&file, data + i, len);
		i += len;
	}
	if (cut && cut < file.len)
		buf_truncate(&file, file.len - cut);
	fd = open(path.data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, file.data, file.len) != (ssize_t)file.len)
		abort();
	close(fd);

	ok = site_cache_read(top, site.data, &k);
	check(ok == 0 || ok == 1);
	if (!ok) {
		check(k.nr == 0 && k.map == NULL && k.v == NULL);
	} else {
		check(k.end <= k.size && k.live <= k.size);
		check_str(&k, k.salt, 0);
		for (i = 0; i < k.nr; i++) {
			check(!i || k.v[i - 1].id < k.v[i].id);
			check_piece(&k, &k.v[i]);
		}
	}
	if (getenv("FUZZ_SITE_CACHE_SHOW"))
		fprintf(stderr, "read %d: %zu pieces\n", ok, k.nr);
	site_cache_release(&k);
	buf_release(&file);
	buf_release(&site);
	buf_release(&path);
	buf_release(&id);
	return 0;
}
