#ifndef PERFBOT_SITE_H
#define PERFBOT_SITE_H

/*
 * The static web site (perfbot-site(1)): what perfbot knows, as pages a
 * web server or a browser on the files shows.  Three steps:
 *
 *   site_gather()  reads the state (I/O): the reports as `status` knows
 *                  them (status.h) -- every one, or only those the
 *                  state's change log says changed since the pieces of
 *                  the last run (site-cache.c) were made;
 *   site_render()  every page, in the order they must be written (each
 *                  page before the lists that link to it), through the
 *                  templates of templates/site (HTML-escaped: the set
 *                  must be in TEMPLATE_ESCAPE_HTML mode).  The report
 *                  pages and their pieces (a report's rows, feed entries
 *                  and lines of reports.json) are made by several threads
 *                  at once, each reading its report's thread, job (its
 *                  facts), mail as sent and samples as it goes (under one
 *                  lock: the state is one connection) and putting the page
 *                  in place (site_write_page()); the lists, feeds and
 *                  reports.json are put together from every report's
 *                  piece, made or cached;
 *   site_write()   writes the other pages whose bytes changed into the
 *                  site's folder (each whole: a new one linked into place,
 *                  an existing one renamed over), then the manifest that
 *                  says what each holds; site_cache_write() then keeps the
 *                  pieces for the next run.
 *
 * Published: reports (not follow-ups, notices or digests) that a server
 * took (state_report.sent); a queued, held or dropped one is on no page.
 * File names never come from outside text as it is: report/N.html (the
 * report's number), tree/NAME/index.html, subsystem/NAME.html and
 * list/NAME.html with NAME made by site_file_name().
 *
 * Incremental: SITE_MANIFEST in the site's folder holds one line per page,
 * "SIZE PATH"; a page whose file holds its new bytes (the size as the
 * manifest says, then compared byte for byte) is not written again.  The
 * manifest is written after the pages and the cache after it, so a run
 * killed midway leaves pages that are whole, and a manifest and cache
 * that the next run corrects (the cache's seq is older than the changes
 * made since: they are read again).
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "buf.h"
#include "config.h"
#include "state.h"
#include "status.h"
#include "template.h"
#include "value.h"

#define SITE_MANIFEST ".manifest"
#define SITE_MAX_FEED 200	/* entries in one Atom feed, newest first */
#define SITE_MAX_PAGE (256u << 20)	/* bytes of one page: the index of
					   10,000 reports is 2.8 MB (the
					   templates' own 16 MB held 57,000) */
#define SITE_MAX_BODY (1u << 20)	/* bytes of a mail shown on its page */

/* One published report and what its page shows.  Owned by the input. */
struct site_report {
	const struct state_report *r;	/* into status.reports */
	const struct state_tracked *t;	/* its fix and activity, or NULL */
	struct state_messages msgs;	/* its thread */
	struct state_job job;		/* its facts (has_job) */
	int has_job;
	char *body;			/* the mail's body as sent, or NULL */
	size_t body_len;
	int64_t changed;		/* when its state last changed (its
					   newest applied command or fix) */
	struct state_names subsystems;	/* the MAINTAINERS sections its head
					   commit touches (route.h) */
	struct state_names lists;	/* their L: lists it went to */
	size_t *commands, nr_commands;	/* its thread's, indices into
					   status.commands */
	size_t *requests, nr_requests;	/* its, indices into status.requests */
	size_t *followups, nr_followups;	/* its sent follow-ups, indices
						   into status.reports */
	char *json;			/* its status --json object, as one
					   line of JSON */
	size_t json_len;
	char fp[2 * 32 + 1];		/* the fingerprint of what its page shows */
	int cached;			/* fp is the manifest's: its page is not
					   made again (thread, job, mail
					   not read; subsystems, lists from the
					   manifest) */
};

/* A list's way up to the site's top: index.html and atom.xml (""), a
 * tree's pages ("../../"), a subsystem's or list's ("../"). */
#define SITE_ROOTS 3

/* One entry of a report in the feeds: the new report (kind 0), its state
 * changed (1), a fix posted for it (2), a test request answered (3).  What
 * the entry shows, so that a feed is made without the report's state. */
struct site_entry {
	int kind;
	int64_t when;
	char *urn, *title;
	/* kind 2: the fix posted */
	char *posted_subject, *posted_version, *posted_author, *posted_evidence, *posted_mid;
	int64_t posted_date;
	int posted_superseded;
	/* kind 3: the request and its verdict */
	int64_t request;
	char *verdict;
};

/* A line of reports.json: a report's or follow-up's status object, with
 * its "page", controls escaped. */
struct site_json {
	int64_t id;
	char *text;
	size_t len;
};

/* What the lists, feeds and reports.json show of a published report:
 * made with its page, or kept from the last run when it did not change. */
struct site_piece {
	int64_t id;
	int64_t activity;		/* its last activity: the lists' order */
	int open;
	char *family;			/* its tree's family: its tree's page */
	char *tree, *state, *subject;	/* what its feed entries say */
	struct state_names subsystems;	/* the MAINTAINERS sections it touches */
	struct state_names lists;	/* their L: lists it went to */
	char *row[SITE_ROOTS];		/* its row at each root: row.html when
					   open, else row-closed.html at the top
					   and row-closed-group.html below;
					   the last NULL when it has neither
					   subsystem nor list */
	size_t row_len[SITE_ROOTS];	/* their lengths */
	struct site_entry *entries;
	size_t nr_entries;
	struct site_json *json;		/* its own line, then its follow-ups' */
	size_t nr_json;
	int borrowed;			/* its strings are the cache's mapping
					   (read only), its arrays the cache's */
	char *record;			/* its record in the cache, made by the
					   thread that made it, or NULL */
	size_t record_len;
};

void site_piece_release(struct site_piece *p);
/* All of p but its number, its record and whether it is borrowed. */
void site_piece_release_texts(struct site_piece *p);

/* p->record: the piece as the cache writes it (site-cache.c). */
void site_piece_record(struct site_piece *p);

/* The pieces of the last run and what they were made of: the state's
 * change seq (state_changes_since()) and the salt. */
struct site_cache {
	int64_t seq;
	const char *salt;
	struct site_piece *v;		/* by number; their strings point into
					   map */
	size_t nr, alloc;
	const char *map;		/* the file, mapped read only */
	size_t size;
	char **blocks;			/* the pieces' arrays (site-cache.c) */
	size_t nr_blocks;
	char *at;
	size_t left;
	size_t end;			/* where its last whole run ends */
	size_t live;			/* the bytes of the records that count */
};

/* Reads state's STATE/cache/site.cache into *k: 1, or 0 when there is
 * none, it is not whole, or it is another site folder's than dir (k then
 * empty: the run makes every piece). */
int site_cache_read(const char *state, const char *dir, struct site_cache *k);
/* Which site folder a cache's pieces are of, as its header says: dir's
 * real path, device and inode.  The pages a run keeps are those of that
 * folder's manifest: a run into another folder (--out), or into one made
 * again, reads every report. */
void site_cache_folder(struct buf *out, const char *dir);
void site_cache_release(struct site_cache *k);

struct site_input;

/* Writes in's pieces, seq, salt and folder as the state's site cache: a
 * partial run (in->partial) appends the pieces it made and the reports it
 * dropped; any other, or a file more than twice what it holds, writes it
 * anew (renamed into place).  0, or -1 with a message. */
int site_cache_write(const struct site_input *in, struct buf *err);

/* A line of the manifest: "SIZE PATH", and for a report's page
 * "\tFINGERPRINT\tSUBSYSTEMS\tLISTS" (names percent-encoded, joined by ','). */
struct site_manifest_entry {
	char *path;		/* these into the manifest's fields */
	unsigned long long size;
	char *fp;		/* "" when none */
	char *subsystems, *lists;
	int seen;		/* a page of this run has its path */
};

struct site_manifest {
	struct site_manifest_entry *v;
	size_t nr, alloc;
	char *fields;		/* the text again, its fields NUL-ended */
	struct buf text;	/* the file as read */
};

struct site_input {
	const struct config *cfg;
	int64_t now;
	const char *dir;		/* the site's folder */
	int full;			/* every page made, whatever the manifest */
	struct buf salt;		/* what every page depends on besides its
					   report (site.c: site_salt()) */
	struct site_manifest manifest;	/* the site folder's, as the run began */
	struct status status;		/* of st's snapshot, like the details */
	struct site_report *v;		/* oldest first */
	size_t nr;
	struct site_piece *pieces;	/* every published report's, oldest
					   first: made by site_render() */
	size_t nr_pieces;
	int64_t seq;			/* the state's change seq, as read */
	struct site_cache cache;	/* the last run's pieces */
	struct state_changes changes;	/* the state's since cache.seq */
	int cacheable;			/* dir is the configured site folder:
					   the cache is its */
	int partial;			/* v holds only the reports changed
					   since cache.seq; the others' pieces
					   are the cache's */
	int cache_dirty;		/* the pieces are not the cache's: it is
					   to be written (site_cache_write()) */
	/* for the reports whose page is made (site_render() reads each
	 * one's details as it makes its page): the state, in one read
	 * transaction, and routing */
	struct state *st;
	struct repo *repo;
	struct route *route;
	int route_tried;
	pthread_t releaser;		/* site_input_release_early()'s */
	int releasing;
};

/* The configured site folder into out: site.dir, else STATE/site. */
void site_default_dir(const struct config *cfg, struct buf *out);

/* Fills *in from the state of cfg (read only; no state yet is an empty
 * site) and the manifest of the site folder dir (kept: in->dir).  Each
 * report's fingerprint (a SHA-256 of its status --json object, its
 * activity and fix dates, the day of now in perfbot.timezone, and a salt
 * of perfbot's version, the configuration file and every file of the
 * site's template folders) is taken by site_render() as it comes to the
 * report: one the manifest has for its page (unless full) means the page
 * is neither gathered whole nor rendered again.  The subsystems and lists
 * come from routing each head commit again as send did (route.h;
 * perfbot.repo, route.maintainersFile): the state keeps only their
 * people.  A repository that cannot be opened, a commit it lacks, or
 * routing off leaves them empty, never an error.  0, or -1 with a
 * message; site_input_release() it either way. */
int site_gather(const struct config *cfg, int64_t now, const char *dir, int full,
		struct site_input *in, struct buf *err);
void site_input_release(struct site_input *in);

/* After site_render(): frees, on a thread of its own, what neither
 * site_write() nor site_cache_write() reads (the status, the reports'
 * own, the pieces' texts but their records), while those write (at the
 * end of a full run over 10,000 reports, 30 ms of frees).
 * site_input_release() waits for it. */
void site_input_release_early(struct site_input *in);

struct site_page {
	char *path;		/* relative to the site's folder */
	char *data;		/* NULL: kept as the manifest has it, or
				   already put (put), or parts */
	struct iovec *parts;	/* or its bytes as these parts, pointing
				   into the pieces (reports.json: each line
				   is its piece's own): put in place before
				   the pieces go (site_input_release_early()) */
	size_t nr_parts;
	size_t len;		/* the bytes' (all the parts') */
	int differs;		/* its file is known not to hold them: written
				   without being read and compared first */
	int put;		/* site_write_page() has put it in place */
	char *extra;		/* a report page's manifest fields ("\tFP\t..."),
				   or NULL */
	struct site_manifest_entry *kept;	/* a report's page kept as the
						   last run left it: its
						   manifest line says all
						   (path and extra NULL) */
};

struct site_pages {
	struct site_page *v;
	size_t nr, alloc;
};

struct site_writer;	/* below */

void site_pages_release(struct site_pages *p);

/*
 * Renders every page of in into *out (empty), in the order to write them:
 * report pages, then tree, subsystem and list pages and their feeds, then
 * index.html, atom.xml and reports.json.  set: templates/site (and a lab's
 * folders before it) in TEMPLATE_ESCAPE_HTML mode, with its templates
 * index.html, report.html, group.html, atom.xml.  -1 with the template's
 * message when one fails; -2 with a message when a report's details
 * cannot be read from the state or its page cannot be written.  Several
 * failures: the first report's.  w: each report page is put in place with
 * site_write_page() as soon as it is made (so that they are not all held
 * at once), and each list but the index (which site_write() puts after
 * the pages it links to): a page made of parts (reports.json) is put in
 * place while the pieces its parts point into are there.
 */
int site_render(struct site_input *in, struct template_set *set, struct site_writer *w,
		struct site_pages *out, struct buf *err);

struct site_stats {
	size_t pages;		/* pages rendered */
	size_t written;		/* of those, written */
	size_t removed;		/* files of the last run's that no page is now */
};

/* Writes pages into a site's folder; one may be shared by threads (its
 * counts and the folders it made are under its lock). */
struct site_writer {
	const char *dir;
	const struct site_manifest *old;	/* the last run's */
	int full;
	struct site_stats stats;
	pthread_mutex_t lock;
	struct buf made;		/* the folders made, "\n"-joined */
};

/* dir (created, 0755, as needed; -1 with a message when it cannot be) and
 * the manifest of the last run.  site_writer_release() it. */
int site_writer_init(struct site_writer *w, const char *dir, const struct site_manifest *old,
		     int full, struct buf *err);
void site_writer_release(struct site_writer *w);

/*
 * Puts page p in place unless its file holds its bytes already (the size
 * as the manifest says, then compared byte for byte; always with full or
 * p->differs):
 * 0644, a new page by dir_write_new_file(), a page replacing its file by
 * dir_write_file_mode() (a temporary name renamed into place), or by
 * dir_write_file_spare() when either is 256 KB or more (their v forms for
 * a page of parts).  Then frees p->data (or p->parts) and sets p->put
 * (the manifest takes p->len).  hint: where p is likely in the manifest
 * (its index in the run's pages).  Safe to call from several threads at
 * once for different pages.  0, or -1 with a message naming the file.
 */
int site_write_page(struct site_writer *w, struct site_page *p, size_t hint, struct buf *err);

/*
 * site_write_page() for each page not put yet, in order, then removes the
 * files the manifest named that are no page any more (and their spares),
 * then writes the manifest.  A run where nothing changed writes nothing,
 * not even the manifest.  0, or -1 with a message naming the file.
 */
int site_write(struct site_writer *w, struct site_pages *p, struct buf *err);

/* The file name part for a tree, subsystem or list name: the name itself
 * when it is [A-Za-z0-9][A-Za-z0-9._-]* (at most 64 bytes), else its
 * letters and digits lowercased, '-' between runs of anything else, at
 * most 40 bytes, then "-" and 8 hex digits of its FNV-1a hash ("h-" and
 * the hash alone when nothing is left): never "..", never a '/'. */
void site_file_name(struct buf *out, const char *name);

#endif
