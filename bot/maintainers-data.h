#ifndef PERFBOT_MAINTAINERS_DATA_H
#define PERFBOT_MAINTAINERS_DATA_H

/*
 * The parsed MAINTAINERS file, as the files of the maintainers module
 * share it (never included elsewhere; maintainers.h is the contract):
 * maintainers.c reads the file into these arrays, maintainers-image.c
 * writes and maps them as one image, maintainers-match.c selects the
 * sections and people for a commit, maintainers-address.c reads the
 * addresses as get_maintainer.pl does.
 */

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "maintainers.h"
#include "perlre.h"

/*
 * One entry of get_maintainer.pl's @typevalue: a kept line.  Like every
 * array but the sections', it holds no pointer (offsets into the text,
 * indexes into other arrays), so that an image (maintainers_load()) is
 * used where it is mapped, without a copy.
 */
struct tv {
	uint32_t off;		/* m->text + off: tag lines: the value; others: the line */
	unsigned len;		/* strlen(value) */
	unsigned line;		/* 1-based line in the file */
	char type;		/* 'A'..'Z' for a tag line; 0 for a name line */
	unsigned char refused;	/* an N: or K: pattern PCRE2 refused (noted) */
};

/* A section: a maximal run of tag lines [first, end) in typevalue. */
struct sec {
	size_t first, end;
	int named;		/* typevalue[first - 1] is its name line */
	struct maintainers_section pub;
	size_t x_first;		/* its X: patterns: m->xs[x_first..x_first+nr_x) */
	size_t nr_x;
	char *own_name;		/* the name when it is built, else NULL */
};

enum fkind { F_PLAIN, F_GLOB, F_REGEX, F_BROKEN };

/* A glob mnt_token: a literal, '?', '*' or a class. */
struct gtok {
	unsigned char kind;	/* 'l', '?', '*', '[' */
	unsigned char c;	/* 'l': the character; '[': 1 when negated */
	unsigned short cls;	/* '[': index into m->classes */
};

struct gclass {
	unsigned char bit[32];
};

/* An F: or X: pattern (its value: mnt_fpat_value()). */
struct fpat {
	uint32_t tok;		/* F_GLOB: its tokens, m->toks[tok..tok+nr_tok) */
	uint32_t tv;
	uint32_t sec;
	uint32_t len;
	uint32_t nr_tok;
	uint32_t key;		/* length of the literal leading directory */
	uint32_t hash;		/* hash_key() of it */
	int32_t next;		/* next pattern of the same index bucket, -1 */
	int16_t slashes;	/* '/' in the pattern */
	int16_t depth;		/* get_maintainer.pl's $value_pd */
	unsigned char dir;	/* ends in '/' */
	unsigned char kind;	/* enum fkind */
};

/* An N: pattern, or a K: pattern (head: as written; diff: "^[+-].*" + it). */
struct rpat {
	size_t tv;
	size_t sec;
	struct perlre *head;
	struct perlre *diff;
	char order[24];		/* the typevalue index as text: K: sections sort by it */
};

struct bucket {
	uint32_t off;		/* the key: m->text + off, len bytes */
	uint32_t len;
	int32_t head;
	uint32_t used;		/* 0: empty */
};

struct maintainers {
	char *text;		/* text_len bytes and a NUL; lines end in NUL */
	size_t text_len;
	char *name;
	const void *image;	/* maintainers_load(): the image the arrays but
				 * secs, fres, npats and kpats point into (the
				 * caller's); else NULL */
	struct tv *tv;
	size_t nr_tv, alloc_tv;
	struct sec *secs;
	size_t nr_secs, alloc_secs;
	struct fpat *fpats;
	size_t nr_fpats, alloc_fpats;
	struct gclass *classes;
	size_t nr_classes, alloc_classes;
	struct perlre **fres;	/* F_REGEX patterns' regexes, by fpat index; NULL
				 * when none is (or once glibc refused it) */
	struct gtok *toks;	/* the glob patterns' tokens, one array */
	size_t nr_toks, alloc_toks;
	uint32_t *xs;		/* the sections' X: patterns, one array */
	size_t nr_xs, alloc_xs;
	struct rpat *npats;
	size_t nr_npats, alloc_npats;
	struct rpat *kpats;
	size_t nr_kpats, alloc_kpats;
	struct bucket *buckets;
	size_t nr_buckets;	/* a power of two */
	size_t nr_fx, nr_names;	/* F:/X: lines and other lines, counted when read */
	struct buf notes;
};

/* A person or a list, as get_maintainer.pl's parse_email() reads one. */
struct person {
	enum maintainers_kind kind;
	char *name_q;		/* the name as format_email() writes it (quoted when needed) */
	char *name;		/* unquoted */
	char *addr;
	int moderated;
	const struct maintainers_section *section;
	int dropped;
};

/* FNV-1a, the index's hash (mnt_hash_step()) */
#define HASH_START 2166136261u

/* maintainers.c */
void mnt_build_sections(struct maintainers *m);
struct bucket *mnt_bucket_find(const struct maintainers *m, const char *key, size_t len, uint32_t hash);
int mnt_count_slashes(const char *s, size_t n);
void mnt_add_rpat(struct maintainers *m, size_t tv, size_t sec, int from_image);
char *mnt_tv_text(const struct maintainers *m, const struct tv *t);
int mnt_glob_prefix(const struct maintainers *m, const struct gtok *t, size_t n, const char *s);
void mnt_convert_glob(struct buf *out, const char *v, size_t len);
uint32_t mnt_hash_step(uint32_t h, unsigned char c);
const char *mnt_tv_value(const struct maintainers *m, const struct tv *t);
void mnt_note(struct maintainers *m, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *mnt_fpat_value(const struct maintainers *m, const struct fpat *f);
int mnt_is_space(int c);

/* maintainers-match.c */
size_t mnt_token(const char *s, const char *e);
int mnt_starts(const char *s, const char *e, const char *with);

/* maintainers-address.c */
void mnt_person_parse(struct person *p, const char *text);
void mnt_person_release(struct person *p);
size_t mnt_rfc_split(const char *value, char ***items);

#endif
