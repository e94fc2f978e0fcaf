/*
 * site-cache.c: the pieces of the last site run, kept so that the next run
 * makes again only the pieces of the reports the state says changed since.
 * In the state's folder (STATE/cache/site.cache), not the site's: it holds
 * the subjects and names as they came, unescaped, and the site is public.
 * It serves the configured site folder only (site_gather()).
 *
 * The file: "perfbot-site-cache 7\n", the salt the pieces were made with
 * and the site folder they are of (site_cache_folder()) as strings, then
 * records, each its letter, its length and its checksum (XXH3's 64 bits
 * of its fields: a damaged record is never read as a piece; zlib's CRC-32
 * was a quarter of a run after one reply, reading 18 MB for 10,000
 * reports), then that many bytes of fields.  Binary, little-endian,
 * whatever the machine: a length or an integer is 8 bytes, a string 4
 * bytes of length, the bytes and a NUL, or 4 bytes 0xff for no string
 * (each field's digits read a byte at a time were a third of reading the
 * cache: 10,000 pieces are some 400,000 fields).  The records:
 *
 *   P  a piece's fields in site_piece's order: the piece of its report,
 *      replacing any before it;
 *   D  a report's number: it has no piece any more;
 *   C  the state's change seq: the records since the last C are one whole
 *      run's, made at that seq.
 *
 * A run that changed a few reports appends their records and a C to the
 * file (after cutting what an unfinished run left past the last C); one
 * that made every piece, or found the file more than twice what it
 * holds, writes it anew, into the spare the file before it left
 * (dir_write_file_spare(): .spare-site.cache beside it).  Read, the file
 * is mapped (read only) and the pieces' strings point into it, each ended
 * by its NUL: 10,000 pieces are one mapping, no copy and no allocation
 * per string; two threads read it, a half each (half_read()).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "dir.h"
#include "heap.h"
#include "site.h"
#include "xalloc.h"
#include "banned.h"

#define MAGIC "perfbot-site-cache 7\n"
#define NO_STRING 0xffffffffu	/* a string field's length: none */
#define RECORD_HEAD 17		/* a record's letter, length and checksum */
#define MAX_ITEMS 1000000	/* names, entries or lines of one piece */

/* ---- writing -------------------------------------------------------- */

static void put_u64(struct buf *b, uint64_t v)
{
	v = htole64(v);
	buf_add(b, &v, sizeof(v));
}

static void put_u32(struct buf *b, uint32_t v)
{
	v = htole32(v);
	buf_add(b, &v, sizeof(v));
}

static void put_int(struct buf *b, int64_t v)
{
	put_u64(b, (uint64_t)v);
}

/* s (len bytes, under 4 GiB: a piece's texts are kilobytes), or none. */
static void put_strn(struct buf *b, const char *s, size_t len)
{
	if (!s || len >= NO_STRING) {
		put_u32(b, NO_STRING);
		return;
	}
	put_u32(b, (uint32_t)len);
	buf_add(b, s, len);
	buf_addc(b, '\0');
}

static void put_str(struct buf *b, const char *s)
{
	put_strn(b, s, s ? strlen(s) : 0);
}

static void put_names(struct buf *b, const struct state_names *n)
{
	size_t i;

	put_int(b, (int64_t)n->nr);
	for (i = 0; i < n->nr; i++)
		put_str(b, n->v[i]);
}

/* Appends record kind with the fields in body (emptied). */
static void put_record(struct buf *b, char kind, struct buf *body)
{
	buf_addc(b, kind);
	put_u64(b, body->len);
	put_u64(b, XXH3_64bits(body->data, body->len));
	buf_add(b, body->data, body->len);
	buf_reset(body);
}

static void put_piece_fields(struct buf *b, const struct site_piece *p)
{
	size_t i;

	put_int(b, p->id);
	put_int(b, p->activity);
	put_int(b, p->open);
	put_str(b, p->family);
	put_str(b, p->tree);
	put_str(b, p->state);
	put_str(b, p->subject);
	put_names(b, &p->subsystems);
	put_names(b, &p->lists);
	for (i = 0; i < SITE_ROOTS; i++)
		put_strn(b, p->row[i], p->row_len[i]);
	put_int(b, (int64_t)p->nr_entries);
	for (i = 0; i < p->nr_entries; i++) {
		const struct site_entry *e = &p->entries[i];

		put_int(b, e->kind);
		put_int(b, e->when);
		put_str(b, e->urn);
		put_str(b, e->title);
		put_str(b, e->posted_subject);
		put_str(b, e->posted_version);
		put_str(b, e->posted_author);
		put_str(b, e->posted_evidence);
		put_str(b, e->posted_mid);
		put_int(b, e->posted_date);
		put_int(b, e->posted_superseded);
		put_int(b, e->request);
		put_str(b, e->verdict);
	}
	put_int(b, (int64_t)p->nr_json);
	for (i = 0; i < p->nr_json; i++) {
		put_int(b, p->json[i].id);
		put_strn(b, p->json[i].text, p->json[i].len);
	}
}

static void put_piece(struct buf *b, const struct site_piece *p, struct buf *body)
{
	if (p->record) {
		buf_add(b, p->record, p->record_len);
		return;
	}
	put_piece_fields(body, p);
	put_record(b, 'P', body);
}

void site_piece_record(struct site_piece *p)
{
	struct buf b = BUF_INIT, body = BUF_INIT;

	free(p->record);
	p->record = NULL;
	put_piece(&b, p, &body);
	p->record = buf_detach(&b, &p->record_len);
	buf_release(&body);
}

/* The records of a run that changed a few reports: the pieces it made,
 * a D for each changed report without one, and the C. */
static void put_run(struct buf *b, const struct site_input *in)
{
	struct buf body = BUF_INIT;
	size_t i, c = 0;

	for (i = 0; i < in->nr_pieces; i++)
		if (!in->pieces[i].borrowed)
			put_piece(b, &in->pieces[i], &body);
	for (i = 0; i < in->changes.nr; i++) {
		int64_t id = in->changes.ids[i];

		while (c < in->nr_pieces && in->pieces[c].id < id)
			c++;
		if (c < in->nr_pieces && in->pieces[c].id == id)
			continue;
		put_int(&body, id);
		put_record(b, 'D', &body);
	}
	put_int(&body, in->seq);
	put_record(b, 'C', &body);
	buf_release(&body);
}

/* Appends b to the cache at path after its last whole run (at). */
static int cache_append(const char *path, size_t at, const struct buf *b, struct buf *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;

	if (fd < 0)
		return err_set(err, "%s: cannot open: %s", path, strerror(errno));
	if (ftruncate(fd, (off_t)at) < 0 || lseek(fd, (off_t)at, SEEK_SET) < 0 ||
	    dir_write_all(fd, b->data, b->len) < 0)
		ret = err_set(err, "%s: cannot write: %s", path, strerror(errno));
	if (close(fd) < 0 && !ret)
		ret = err_set(err, "%s: cannot write: %s", path, strerror(errno));
	return ret;
}

/* STATE/cache/site.cache (its folder made when make). */
static int cache_path(struct buf *out, const char *state, int make, struct buf *err)
{
	buf_addf(out, "%s/cache", state);
	if (make && dir_make(out->data, 0700, err) < 0)
		return -1;
	buf_adds(out, "/site.cache");
	return 0;
}

void site_cache_folder(struct buf *out, const char *dir)
{
	char *real = realpath(dir, NULL);
	struct stat sb;

	buf_adds(out, real ? real : dir);
	if (stat(dir, &sb) == 0) {
		buf_addc(out, ' ');
		buf_add_uint(out, (unsigned long long)sb.st_dev);
		buf_addc(out, ':');
		buf_add_uint(out, (unsigned long long)sb.st_ino);
	}
	free(real);
}

int site_cache_write(const struct site_input *in, struct buf *err)
{
	struct buf b = BUF_INIT, path = BUF_INIT, body = BUF_INIT;
	size_t i;
	int ret;

	if (cache_path(&path, in->cfg->state, 1, err) < 0) {
		buf_release(&path);
		return -1;
	}
	if (in->partial && in->cache.end <= 2 * in->cache.live + (1u << 20)) {
		put_run(&b, in);
		ret = cache_append(path.data, in->cache.end, &b, err);
		goto out;
	}
	{
		size_t size = 64;

		for (i = 0; i < in->nr_pieces; i++)
			size += in->pieces[i].record ? in->pieces[i].record_len : 4096;
		buf_grow(&b, size);
	}
	buf_adds(&b, MAGIC);
	put_str(&b, in->salt.data);
	site_cache_folder(&body, in->dir);
	put_strn(&b, body.data, body.len);
	buf_reset(&body);
	for (i = 0; i < in->nr_pieces; i++)
		put_piece(&b, &in->pieces[i], &body);
	put_int(&body, in->seq);
	put_record(&b, 'C', &body);
	/* into the spare of the cache before last (18 MB for 10,000 reports,
	 * whose blocks are then not freed and allocated again) */
	ret = dir_write_file_spare(path.data, b.data, b.len, 0644, err);
out:
	buf_release(&b);
	buf_release(&body);
	buf_release(&path);
	return ret;
}

/* ---- reading -------------------------------------------------------- */

struct cursor {
	const char *p, *end;
};

static uint64_t le64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t le32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static int get_int(struct cursor *c, int64_t *out)
{
	if (c->end - c->p < 8)
		return -1;
	*out = (int64_t)le64(c->p);
	c->p += 8;
	return 0;
}

/* A string (its NUL is the file's: it points into the mapping), or NULL
 * for none. */
static int get_str(struct cursor *c, char **out, size_t *len)
{
	uint32_t n;

	*out = NULL;
	if (len)
		*len = 0;
	if (c->end - c->p < 4)
		return -1;
	n = le32(c->p);
	c->p += 4;
	if (n == NO_STRING)
		return 0;
	if ((size_t)(c->end - c->p) < (size_t)n + 1 || c->p[n] != '\0')
		return -1;
	/* read only: a borrowed piece's strings are never written */
	*out = (char *)(uintptr_t)c->p;
	c->p += (size_t)n + 1;
	if (len)
		*len = n;
	return 0;
}

static int get_count(struct cursor *c, size_t *out)
{
	int64_t v;

	if (get_int(c, &v) < 0 || v < 0 || v > MAX_ITEMS)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* n zeroed bytes that live as long as k (its pieces' arrays: one block a
 * megabyte, not an allocation an array). */
static void *cache_alloc(struct site_cache *k, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > k->left) {
		size_t size = n > (1u << 20) ? n : (1u << 20);

		k->blocks = xrealloc(k->blocks, (k->nr_blocks + 1) * sizeof(*k->blocks));
		k->blocks[k->nr_blocks++] = k->at = xcalloc(1, size);
		k->left = size;
	}
	p = k->at;
	k->at += n;
	k->left -= n;
	return p;
}

static int get_names(struct site_cache *k, struct cursor *c, struct state_names *n)
{
	size_t nr, i;

	if (get_count(c, &nr) < 0)
		return -1;
	n->v = cache_alloc(k, (nr + 1) * sizeof(*n->v));
	n->alloc = nr + 1;
	for (i = 0; i < nr; i++) {
		if (get_str(c, &n->v[i], NULL) < 0 || !n->v[i])
			return -1;
		n->nr++;
	}
	return 0;
}

static int get_piece(struct site_cache *k, struct cursor *c, struct site_piece *p)
{
	int64_t v;
	size_t i, nr;

	memset(p, 0, sizeof(*p));
	p->borrowed = 1;
	if (get_int(c, &p->id) < 0 || get_int(c, &p->activity) < 0 || get_int(c, &v) < 0 ||
	    get_str(c, &p->family, NULL) < 0 || !p->family || get_str(c, &p->tree, NULL) < 0 ||
	    !p->tree || get_str(c, &p->state, NULL) < 0 || !p->state ||
	    get_str(c, &p->subject, NULL) < 0 || !p->subject ||
	    get_names(k, c, &p->subsystems) < 0 || get_names(k, c, &p->lists) < 0)
		return -1;
	p->open = v != 0;
	for (i = 0; i < SITE_ROOTS; i++)
		if (get_str(c, &p->row[i], &p->row_len[i]) < 0)
			return -1;
	if (get_count(c, &nr) < 0)
		return -1;
	p->entries = cache_alloc(k, (nr + 1) * sizeof(*p->entries));
	for (i = 0; i < nr; i++) {
		struct site_entry *e = &p->entries[i];

		if (get_int(c, &v) < 0 || v < 0 || v > 3)
			return -1;
		e->kind = (int)v;
		if (get_int(c, &e->when) < 0 || get_str(c, &e->urn, NULL) < 0 || !e->urn ||
		    get_str(c, &e->title, NULL) < 0 || !e->title ||
		    get_str(c, &e->posted_subject, NULL) < 0 ||
		    get_str(c, &e->posted_version, NULL) < 0 ||
		    get_str(c, &e->posted_author, NULL) < 0 ||
		    get_str(c, &e->posted_evidence, NULL) < 0 ||
		    get_str(c, &e->posted_mid, NULL) < 0 || get_int(c, &e->posted_date) < 0 ||
		    get_int(c, &v) < 0 || get_int(c, &e->request) < 0 ||
		    get_str(c, &e->verdict, NULL) < 0)
			return -1;
		e->posted_superseded = v != 0;
		/* what site.c reads of each kind is there */
		if ((e->kind == 2 && (!e->posted_subject || !e->posted_version || !e->posted_author ||
				      !e->posted_evidence || !e->posted_mid)) ||
		    (e->kind == 3 && !e->verdict))
			return -1;
		p->nr_entries++;
	}
	if (get_count(c, &nr) < 0)
		return -1;
	p->json = cache_alloc(k, (nr + 1) * sizeof(*p->json));
	for (i = 0; i < nr; i++) {
		if (get_int(c, &p->json[i].id) < 0 ||
		    get_str(c, &p->json[i].text, &p->json[i].len) < 0 || !p->json[i].text)
			return -1;
		p->nr_json++;
	}
	return 0;
}

void site_cache_release(struct site_cache *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		site_piece_release(&k->v[i]);
	free(k->v);
	dir_unmap_file(k->map, k->size);
	for (i = 0; i < k->nr_blocks; i++)
		free(k->blocks[i]);
	free(k->blocks);
	memset(k, 0, sizeof(*k));
}

/* A record of the file: which report, in file order. */
struct op {
	int64_t id;
	size_t order;
	size_t piece;		/* its piece in its half's all, or (size_t)-1
				   for a D */
	struct site_piece *p;	/* that piece, once both halves are read */
	size_t bytes;		/* the record's size */
};

static int by_id_order(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The n ops in number order, each report's in file order.  A file written
 * anew is in that order already, and the runs appended since are a few
 * records: only those are sorted, then merged with the rest (sorting all
 * 10,000 was a tenth of reading the cache). */
static void ops_sort(struct op **ops, size_t n)
{
	struct op *v = *ops, *out;
	size_t sorted = 1, i, j, k = 0;

	while (sorted < n && by_id_order(&v[sorted - 1], &v[sorted]) < 0)
		sorted++;
	if (sorted >= n)
		return;
	xqsort(v + sorted, n - sorted, sizeof(*v), by_id_order);
	out = xmalloc((n + 1) * sizeof(*out));
	for (i = 0, j = sorted; i < sorted || j < n;)
		out[k++] = j == n || (i < sorted && by_id_order(&v[i], &v[j]) < 0) ? v[i++] : v[j++];
	free(v);
	*ops = out;
}

/* The next record at c: its letter and fields, its checksum as written;
 * c past it.  -1 when what is there is not a whole record. */
static int next_record(struct cursor *c, char *kind, struct cursor *body, uint64_t *sum)
{
	uint64_t len;

	/* its letter, length and checksum, then the fields */
	if (c->end - c->p < RECORD_HEAD)
		return -1;
	*kind = *c->p;
	len = le64(c->p + 1);
	*sum = le64(c->p + 9);
	c->p += RECORD_HEAD;
	if ((uint64_t)(c->end - c->p) < len)
		return -1;
	body->p = c->p;
	body->end = c->p + len;
	c->p += len;
	return 0;
}

/* A C record as read: the run it ends. */
struct commit {
	size_t end;		/* past it, from the file's start */
	int64_t seq;
	size_t whole_ops;	/* the half's records before it */
};

/*
 * The records are read in two halves, one by a second thread: each checks
 * a record's checksum and parses its fields, up to the first record that
 * is not whole or not what its checksum says (the fields' reader is
 * bounded by the record's length either way).  What the first half read
 * is followed by what the second read, unless the first stopped short of
 * its end.
 * (One thread reading and checking the 18 MB of 10,000 reports was the
 * largest part of a run after one reply.)
 */
struct half {
	struct site_cache arena;	/* the blocks of its pieces' arrays */
	const char *base;		/* the file's start */
	struct cursor records;
	const char *stop;		/* where it stopped: records.end, or
					   the first record that failed */
	struct op *ops;
	size_t nr_ops, alloc_ops;
	struct site_piece *all;
	size_t nr_all, alloc_all;
	struct commit *commits;
	size_t nr_commits, alloc_commits;
};

static void *half_read(void *arg)
{
	struct half *h = arg;
	struct cursor c = h->records;

	heap_for_big_pages_thread();

	/* room for as many records as a kilobyte each makes: a piece is
	 * about two, so the arrays are not moved as they grow */
	h->alloc_ops = h->alloc_all = (size_t)(c.end - c.p) / 1024 + 16;
	h->ops = xmalloc(h->alloc_ops * sizeof(*h->ops));
	h->all = xmalloc(h->alloc_all * sizeof(*h->all));

	for (;;) {
		const char *start = c.p;
		struct cursor body;
		uint64_t sum;
		char kind;
		int64_t id;

		h->stop = start;
		if (c.p >= c.end || next_record(&c, &kind, &body, &sum) < 0 ||
		    XXH3_64bits(body.p, (size_t)(body.end - body.p)) != sum)
			return NULL;
		if (kind == 'C') {
			struct commit *m;

			ALLOC_GROW(h->commits, h->nr_commits + 1, h->alloc_commits);
			m = &h->commits[h->nr_commits];
			if (get_int(&body, &m->seq) < 0 || body.p != body.end)
				return NULL;
			m->end = (size_t)(c.p - h->base);
			m->whole_ops = h->nr_ops;
			h->nr_commits++;
			continue;
		}
		ALLOC_GROW(h->ops, h->nr_ops + 1, h->alloc_ops);
		if (kind == 'P') {
			ALLOC_GROW(h->all, h->nr_all + 1, h->alloc_all);
			if (get_piece(&h->arena, &body, &h->all[h->nr_all]) < 0 || body.p != body.end) {
				site_piece_release(&h->all[h->nr_all]);
				return NULL;
			}
			id = h->all[h->nr_all].id;
			h->ops[h->nr_ops].piece = h->nr_all++;
		} else if (kind == 'D') {
			if (get_int(&body, &id) < 0 || body.p != body.end)
				return NULL;
			h->ops[h->nr_ops].piece = (size_t)-1;
		} else {
			return NULL;
		}
		h->ops[h->nr_ops].id = id;
		h->ops[h->nr_ops].bytes = (size_t)(c.p - start);
		h->nr_ops++;
	}
}

static void half_release(struct half *h)
{
	size_t i;

	for (i = 0; i < h->nr_all; i++)
		site_piece_release(&h->all[i]);
	free(h->all);
	free(h->ops);
	free(h->commits);
	site_cache_release(&h->arena);
}

/* Where the records from c on are cut in two: the start of the first
 * record past the middle of the bytes (or where a record is not whole). */
static const char *records_middle(struct cursor c)
{
	const char *mid = c.p + (c.end - c.p) / 2;
	struct cursor body;
	uint64_t sum;
	char kind;

	while (c.p < mid) {
		const char *start = c.p;

		if (next_record(&c, &kind, &body, &sum) < 0)
			return start;
	}
	return c.p;
}

int site_cache_read(const char *state, const char *dir, struct site_cache *k)
{
	struct buf path = BUF_INIT, folder = BUF_INIT;
	struct cursor c;
	struct op *ops = NULL;
	struct half h[2];
	const struct commit *last = NULL;
	pthread_t second;
	size_t nr_ops = 0, whole_ops = 0, i, j;
	char *salt, *of;
	int ok = 0, threaded = 0;

	memset(k, 0, sizeof(*k));
	memset(h, 0, sizeof(h));
	cache_path(&path, state, 0, NULL);
	site_cache_folder(&folder, dir);
	/* a file that cannot be mapped only costs a run that makes every
	 * piece */
	if (!dir_map_file(path.data, (size_t)1 << 32, (const void **)&k->map, &k->size) ||
	    k->size < strlen(MAGIC) || memcmp(k->map, MAGIC, strlen(MAGIC)))
		goto out;
	c.p = k->map + strlen(MAGIC);
	c.end = k->map + k->size;
	if (get_str(&c, &salt, NULL) < 0 || !salt || get_str(&c, &of, NULL) < 0 || !of ||
	    strcmp(of, folder.data))
		goto out;
	k->salt = salt;
	/* the records up to the last C: what an unfinished run left after
	 * it is not read (and cut by the next append) */
	h[0].base = h[1].base = k->map;
	h[0].records = h[1].records = c;
	h[0].records.end = h[1].records.p = records_middle(c);
	threaded = pthread_create(&second, NULL, half_read, &h[1]) == 0;
	half_read(&h[0]);
	if (threaded)
		pthread_join(second, NULL);
	else if (h[0].stop == h[0].records.end)
		half_read(&h[1]);
	/* the last C before the first record that failed */
	for (j = 0; j < 2; j++) {
		if (h[j].nr_commits) {
			last = &h[j].commits[h[j].nr_commits - 1];
			whole_ops = nr_ops + last->whole_ops;
		}
		nr_ops += h[j].nr_ops;
		if (h[j].stop != h[j].records.end)
			break;
	}
	if (last) {
		k->seq = last->seq;
		k->end = last->end;
	}
	/* one list of both halves' records, in the file's order (the pieces
	 * stay in their halves' arrays until taken) */
	ops = xmalloc((nr_ops + 1) * sizeof(*ops));
	nr_ops = 0;
	for (j = 0; j < 2 && nr_ops < whole_ops; j++) {
		for (i = 0; i < h[j].nr_ops; i++) {
			ops[nr_ops] = h[j].ops[i];
			ops[nr_ops].order = nr_ops;
			ops[nr_ops].p = ops[nr_ops].piece == (size_t)-1 ? NULL
								  : &h[j].all[ops[nr_ops].piece];
			nr_ops++;
		}
		/* the pieces' arrays live as long as k */
		k->blocks = xrealloc(k->blocks, (k->nr_blocks + h[j].arena.nr_blocks + 1) *
					       sizeof(*k->blocks));
		memcpy(k->blocks + k->nr_blocks, h[j].arena.blocks,
		       h[j].arena.nr_blocks * sizeof(*k->blocks));
		k->nr_blocks += h[j].arena.nr_blocks;
		h[j].arena.nr_blocks = 0;
	}
	if (!k->end)
		goto out;
	/* the last record of each report says what it has */
	ops_sort(&ops, whole_ops);
	k->v = xcalloc(whole_ops + 1, sizeof(*k->v));
	k->alloc = whole_ops + 1;
	for (i = 0; i < whole_ops; i++) {
		const struct op *o = &ops[i];

		if (i + 1 < whole_ops && ops[i + 1].id == o->id)
			continue;
		if (!o->p)
			continue;
		k->v[k->nr] = *o->p;
		memset(o->p, 0, sizeof(*o->p));
		k->live += o->bytes;
		k->nr++;
	}
	ok = 1;
out:
	/* the pieces no record kept, and those after the last C, go with
	 * their halves */
	free(ops);
	half_release(&h[0]);
	half_release(&h[1]);
	buf_release(&path);
	buf_release(&folder);
	if (!ok)
		site_cache_release(k);
	return ok;
}
