/*
 * schema4.h: for the unit tests of the state database (test-state.c,
 * test-state-track.c) only.  Included after <cmocka.h>, <sqlite3.h> and
 * buf.h; static functions.
 *
 * The migrations are tested from databases of older versions, made by
 * hand from one of this version.  schema_undo_changes() undoes schema 11
 * (the change log: its table, index and triggers dropped);
 * schema_undo_posted() undoes it and schema 10 (posted fixes: its table
 * and the fixes' column dropped);
 * schema_undo_results() undoes it and schema 9 (a request's results: its
 * columns dropped); schema_undo_requests() undoes them and schema 8
 * (fix testing: its tables dropped); schema_undo_known() undoes it and
 * schema 7 (the known messages include the outbox's mails not sent yet):
 * the view of version 6 made again.  schema_undo_track() undoes those and
 * schema 6 (perfbot-track(1)): its tables and index dropped, reports rebuilt with version
 * 5's constraints and columns, its indexes and the views made again;
 * schema_back_to_4() then undoes schema 5 (routing) too.
 */
#ifndef PERFBOT_TEST_SCHEMA4_H
#define PERFBOT_TEST_SCHEMA4_H

/* Replaces from by to in *sql (once; the test fails if it is absent). */
static void replace_once(struct buf *sql, const char *from, const char *to)
{
	const char *at = strstr(sql->data, from);
	struct buf out = BUF_INIT;

	if (!at)
		fail_msg("'%s' is not in %s", from, sql->data);
	buf_add(&out, sql->data, (size_t)(at - sql->data));
	buf_adds(&out, to);
	buf_adds(&out, at + strlen(from));
	buf_reset(sql);
	buf_add(sql, out.data, out.len);
	buf_release(&out);
}

static void exec_or_fail(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
}

/* Makes the database at path what schema version 10 left: no change
 * log (its triggers are every trigger named changes_*). */
static void schema_undo_changes(const char *path)
{
	struct buf sql = BUF_INIT;
	sqlite3 *db;
	sqlite3_stmt *s;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	buf_adds(&sql, "BEGIN; ");
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'trigger' "
					    "AND name LIKE 'changes\\_%' ESCAPE '\\'", -1, &s, NULL),
			 SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW)
		buf_addf(&sql, "DROP TRIGGER %s; ", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	buf_adds(&sql, "DROP INDEX changes_seq; DROP TABLE changes; "
		 "DELETE FROM schema_version WHERE version = 11; COMMIT");
	exec_or_fail(db, sql.data);
	sqlite3_close(db);
	buf_release(&sql);
}

/* Makes the database at path what schema version 9 left: no posted
 * fixes. */
static void schema_undo_posted(const char *path)
{
	sqlite3 *db;

	schema_undo_changes(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "BEGIN; DROP TABLE posted_fixes; ALTER TABLE fixes DROP COLUMN posted; "
		     "DELETE FROM schema_version WHERE version = 10; COMMIT");
	sqlite3_close(db);
}

/* Makes the database at path what schema version 8 left: requests
 * without their results. */
static void schema_undo_results(const char *path)
{
	sqlite3 *db;

	schema_undo_posted(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "BEGIN; ALTER TABLE requests DROP COLUMN verdict; "
		     "ALTER TABLE requests DROP COLUMN result_message_id; "
		     "ALTER TABLE requests DROP COLUMN results; "
		     "DELETE FROM schema_version WHERE version = 9; COMMIT");
	sqlite3_close(db);
}

/* Makes the database at path what schema version 7 left: no fix testing
 * tables. */
static void schema_undo_requests(const char *path)
{
	sqlite3 *db;

	schema_undo_results(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "BEGIN; DROP TABLE requests; DROP TABLE report_jobs; "
		     "DELETE FROM schema_version WHERE version = 8; COMMIT");
	sqlite3_close(db);
}

/* Makes the database at path what schema version 6 left: known_messages
 * shows perfbot's own mails only once sent. */
static void schema_undo_known(const char *path)
{
	sqlite3 *db;

	schema_undo_requests(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "BEGIN; DROP VIEW known_messages; "
		     "CREATE VIEW known_messages AS"
		     "  SELECT message_id, report_id, parent_message_id, in_reply_to, refs, from_name,"
		     "    from_email, date, subject, origin, blob_oid, commit_oid, quarantined,"
		     "    quarantine_reason FROM messages"
		     "  UNION ALL"
		     "  SELECT message_id, thread_id, in_reply_to, in_reply_to, refs, from_name, from_email,"
		     "    created, subject, 'sent', NULL, NULL, 0, NULL FROM reports r"
		     "    WHERE sent IS NOT NULL AND redirected_to IS NULL AND NOT EXISTS"
		     "      (SELECT 1 FROM messages m WHERE m.message_id = r.message_id);"
		     "DELETE FROM schema_version WHERE version = 7; COMMIT");
	sqlite3_close(db);
}

/* SQL that takes the routing step (schema 5) off a database of
 * version 5. */
#define UNDO_ROUTING \
	"ALTER TABLE reports DROP COLUMN maintainer_addrs; " \
	"ALTER TABLE commands DROP COLUMN applied; ALTER TABLE commands DROP COLUMN why; " \
	"DROP TABLE exclusions; DELETE FROM schema_version WHERE version = 5; "

/*
 * Makes the database at path what schema version 5 left (by hand, as the
 * migrations are tested from older versions): the tables of tracking (schema 6)
 * dropped, and reports rebuilt with its version 5 constraints and
 * columns, its indexes and the views made again.
 */
static void schema_undo_track(const char *path)
{
	struct buf table = BUF_INIT;
	char *again[8];
	size_t n = 0, i;
	sqlite3 *db;
	sqlite3_stmt *s;

	schema_undo_known(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "PRAGMA foreign_keys = OFF; BEGIN; DROP TABLE fixes; DROP TABLE possible_fixes; "
		     "DROP TABLE track_cursors; DROP TABLE notices; DROP TABLE digest_entries; "
		     "DROP INDEX reports_tracked");
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND "
					    "((type = 'index' AND tbl_name = 'reports') OR type = 'view') "
					    "ORDER BY rowid", -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && n < sizeof(again) / sizeof(again[0]))
		again[n++] = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	exec_or_fail(db, "DROP VIEW known_messages; ALTER TABLE reports DROP COLUMN tree; "
		     "ALTER TABLE reports DROP COLUMN head");
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE name = 'reports'", -1,
					    &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	buf_adds(&table, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	replace_once(&table, "CREATE TABLE \"reports\" (", "CREATE TABLE reports_4 (");
	replace_once(&table, "CHECK (kind IN ('report', 'followup', 'notice', 'digest'))",
		     "CHECK (kind IN ('report', 'followup'))");
	replace_once(&table, "CHECK (kind = 'digest' OR (kind = 'report') = (parent_id IS NULL))",
		     "CHECK ((kind = 'report') = (parent_id IS NULL))");
	exec_or_fail(db, table.data);
	exec_or_fail(db, "INSERT INTO reports_4 SELECT * FROM reports; DROP TABLE reports; "
		     "ALTER TABLE reports_4 RENAME TO reports");
	for (i = 0; i < n; i++) {
		exec_or_fail(db, again[i]);
		free(again[i]);
	}
	exec_or_fail(db, "DELETE FROM schema_version WHERE version = 6; COMMIT");
	sqlite3_close(db);
	buf_release(&table);
}

/* Makes the database at path what schema version 4 left. */
static void schema_back_to_4(const char *path)
{
	sqlite3 *db;

	schema_undo_track(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_or_fail(db, "PRAGMA foreign_keys = OFF; BEGIN; " UNDO_ROUTING "COMMIT");
	sqlite3_close(db);
}

#endif
