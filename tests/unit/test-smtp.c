/*
 * test-smtp: the SMTP client against tests/helpers/smtp-peer.py, a
 * scripted server started on 127.0.0.1 for each case (and stopped by PID in
 * the teardown, also when the case fails), with certificates made by
 * tests/helpers/make-test-certs.sh.  Nothing here contacts any address but
 * 127.0.0.1: the one case that names another (192.0.2.1) checks that it is
 * refused before any connect.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "smtp.h"
#include "tls.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char top[PATH_MAX];	/* the source tree */
static char certs[PATH_MAX];	/* make-test-certs.sh's output */
static char certs_root[64];

struct peer {
	pid_t pid;
	int port;
	char dir[PATH_MAX];	/* transcript and messages */
};

/* The peer a failing case left running, stopped at exit at the latest. */
static struct peer *running;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	if (*dir)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void peer_stop(struct peer *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
	remove_tree(p->dir);
	p->dir[0] = '\0';
	if (running == p)
		running = NULL;
}

static void stop_running(void)
{
	if (running)
		peer_stop(running);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Starts the peer with mode ("plain", "starttls", "ssl"), a certificate
 * name from make-test-certs.sh (or NULL), and more arguments (NULL-ended
 * list).  Keeps a transcript and the messages in p->dir unless quiet.
 */
static void peer_start(struct peer *p, const char *mode, const char *cert, int quiet,
		       const char *const *extra)
{
	char path[PATH_MAX + 64], cert_path[PATH_MAX + 16], key_path[PATH_MAX + 16];
	char transcript[PATH_MAX + 16], line[32];
	const char *argv[64];
	size_t argc = 0, i;
	int fds[2], n = 0;
	struct pollfd pfd;
	pid_t parent;

	snprintf(p->dir, sizeof(p->dir), "/tmp/perfbot-smtp-XXXXXX");
	assert_non_null(mkdtemp(p->dir));
	snprintf(path, sizeof(path), "%s/tests/helpers/smtp-peer.py", top);
	argv[argc++] = "python3";
	argv[argc++] = path;
	argv[argc++] = "--mode";
	argv[argc++] = mode;
	if (cert) {
		snprintf(cert_path, sizeof(cert_path), "%s/%s.pem", certs, cert);
		snprintf(key_path, sizeof(key_path), "%s/%s.key", certs, cert);
		argv[argc++] = "--cert";
		argv[argc++] = cert_path;
		argv[argc++] = "--key";
		argv[argc++] = key_path;
	}
	if (!quiet) {
		snprintf(transcript, sizeof(transcript), "%s/transcript", p->dir);
		argv[argc++] = "--transcript";
		argv[argc++] = transcript;
		argv[argc++] = "--outdir";
		argv[argc++] = p->dir;
	}
	for (i = 0; extra && extra[i]; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	assert_true(argc < N(argv));

	assert_int_equal(pipe(fds), 0);
	parent = getpid();
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		/* Ends with this process even when it is killed, so a crash
		 * (a SIGPIPE, say) leaves no server running. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp("python3", (char *const *)argv);
		_exit(127);
	}
	running = p;
	close(fds[1]);
	/* The first line of its stdout is the port. */
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	while (n < (int)sizeof(line) - 1 && poll(&pfd, 1, 10000) == 1) {
		ssize_t r = read(fds[0], line + n, 1);

		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(fds[0]);
	p->port = atoi(line);
	if (p->port <= 0)
		fail_msg("smtp-peer.py did not start (printed \"%s\")", line);
}

/* dir/name's bytes (NUL-terminated, *len set when len is not NULL), or ""
 * when it cannot be read. */
static char *read_file(const char *dir, const char *name, size_t *len)
{
	char path[PATH_MAX + 64];
	struct buf b = BUF_INIT, err = BUF_INIT;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (buf_read_file(&b, path, 0, &err))
		buf_reset(&b);
	buf_release(&err);
	return buf_detach(&b, len);
}

static char *read_text(const char *dir, const char *name)
{
	return read_file(dir, name, NULL);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* The transcript once the peer logged `closes` connection ends (the peer
 * may still be writing when the client is done). */
static char *transcript(struct peer *p, size_t closes)
{
	double until = now() + 10;
	char *t;

	for (;;) {
		t = read_text(p->dir, "transcript");
		if (count(t, "CLOSE\n") >= closes || now() > until)
			return t;
		free(t);
		usleep(10000);
	}
}

static struct smtp_options options(const struct peer *p, enum smtp_encryption e)
{
	struct smtp_options o = { 0 };

	o.server = "127.0.0.1";
	o.port = p->port;
	o.encryption = e;
	o.timeout = 5;
	o.helo_name = "perfbot.test";
	return o;
}

static char *ca_path(void)
{
	static char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/ca.pem", certs);
	return path;
}

static const char message[] =
	"From: bot <bot@example.org>\n"
	"Subject: test\n"
	"\n"
	"line one\n"
	".starts with a dot\n"
	"..two dots\n"
	".\n"
	"last line\n";
static const char wire[] =
	"From: bot <bot@example.org>\r\n"
	"Subject: test\r\n"
	"\r\n"
	"line one\r\n"
	"..starts with a dot\r\n"
	"...two dots\r\n"
	"..\r\n"
	"last line\r\n";

static int send_one(struct smtp_session *s, const char *const *rcpt, size_t n,
		    struct smtp_result *res, struct buf *err)
{
	return smtp_send(s, "bot@example.org", rcpt, n, message, strlen(message), res, err);
}

/* ------------------------------------------------------------------ */

static int setup(void **state)
{
	struct peer *p = calloc(1, sizeof(*p));

	*state = p;
	return p ? 0 : -1;
}

static int teardown(void **state)
{
	peer_stop(*state);
	free(*state);
	return 0;
}

static int group_setup(void **state)
{
	char cmd[3 * PATH_MAX];

	(void)state;
	snprintf(certs_root, sizeof(certs_root), "/tmp/perfbot-certs-XXXXXX");
	if (!mkdtemp(certs_root))
		return -1;
	snprintf(certs, sizeof(certs), "%s/certs", certs_root);
	snprintf(cmd, sizeof(cmd), "sh '%s/tests/helpers/make-test-certs.sh' '%s'", top, certs);
	if (system(cmd)) {
		fprintf(stderr, "make-test-certs.sh failed\n");
		return -1;
	}
	/* DER copies for tls_verify_chain(). */
	snprintf(cmd, sizeof(cmd), "cd '%s' && for c in server wrong self ca; do "
		 "openssl x509 -in $c.pem -outform DER -out $c.der || exit 1; done", certs);
	if (system(cmd)) {
		fprintf(stderr, "openssl x509 -outform DER failed\n");
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	remove_tree(certs_root);
	return 0;
}

/* ------------------------------------------------------------------ */

/* tls_verify_chain() on its own: trust, host names, limits. */
static void tls_verify_chain_decides(void **state)
{
	static const struct {
		const char *chain[3];	/* DER files, the server's first */
		const char *host;
		const char *ca;		/* PEM file in certs/ */
		const char *why;	/* NULL: trusted */
	} cases[] = {
		{ { "server" }, "127.0.0.1", "ca.pem", NULL },
		{ { "server" }, "localhost", "ca.pem", NULL },
		{ { "server" }, "LOCALHOST", "ca.pem", NULL },
		{ { "server", "ca" }, "127.0.0.1", "ca.pem", NULL },
		{ { "wrong" }, "wrong.example", "ca.pem", NULL },
		{ { "server" }, "127.0.0.2", "ca.pem", "issued for another host name" },
		{ { "server" }, "::1", "ca.pem", "issued for another host name" },
		{ { "server" }, "localhost.example", "ca.pem", "issued for another host name" },
		{ { "wrong" }, "127.0.0.1", "ca.pem", "issued for another host name" },
		{ { "self" }, "127.0.0.1", "ca.pem", "issuer unknown" },
		{ { "self", "server" }, "127.0.0.1", "ca.pem", "issuer unknown" },
		{ { "self" }, "127.0.0.1", "self.pem", NULL },
		{ { "server" }, "127.0.0.1", "self.pem", "issuer unknown" },
		{ { "server" }, "127.0.0.1", "missing.pem", "cannot read CA certificates" },
		{ { "server" }, "127.0.0.1", "server.key", "holds no PEM certificate" },
		{ { "garbage" }, "127.0.0.1", "ca.pem", "cannot be read" },
		{ { NULL }, "127.0.0.1", "ca.pem", "sent no certificate" },
		{ { "server" }, "", "ca.pem", "no valid host name" },
	};
	size_t i, n;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const unsigned char *der[3];
		size_t len[3];
		char *text[3], ca[PATH_MAX + 32], name[32];
		struct buf err = BUF_INIT;
		int r;

		for (n = 0; n < 3 && cases[i].chain[n]; n++) {
			snprintf(name, sizeof(name), "%s.der", cases[i].chain[n]);
			if (!strcmp(cases[i].chain[n], "garbage")) {
				static const char garbage[] = "\x30\x03not a certificate";

				text[n] = malloc(sizeof(garbage));
				memcpy(text[n], garbage, sizeof(garbage));
				len[n] = sizeof(garbage);
			} else {
				text[n] = read_file(certs, name, &len[n]);
				assert_true(len[n] > 0);
			}
			der[n] = (const unsigned char *)text[n];
		}
		snprintf(ca, sizeof(ca), "%s/%s", certs, cases[i].ca);
		r = tls_verify_chain(der, len, n, cases[i].host, ca, &err);
		if (!cases[i].why && r)
			fail_msg("case %zu: refused: %s", i, err.data);
		if (cases[i].why && (!r || !strstr(err.data, cases[i].why)))
			fail_msg("case %zu: \"%s\", not \"%s\"", i, r ? err.data : "trusted",
				 cases[i].why);
		while (n)
			free(text[--n]);
		buf_release(&err);
	}
}

/* More certificates than TLS_CHAIN_MAX, or a huge one, are refused unread. */
static void tls_limits(void **state)
{
	const unsigned char *der[TLS_CHAIN_MAX + 1];
	size_t len[TLS_CHAIN_MAX + 1], i;
	struct buf err = BUF_INIT;

	(void)state;
	for (i = 0; i <= TLS_CHAIN_MAX; i++) {
		der[i] = (const unsigned char *)"x";
		len[i] = 1;
	}
	assert_int_equal(tls_verify_chain(der, len, TLS_CHAIN_MAX + 1, "h", NULL, &err), -1);
	assert_non_null(strstr(err.data, "more than the 16"));
	len[0] = TLS_CERT_MAX + 1;
	assert_int_equal(tls_verify_chain(der, len, 1, "h", NULL, &err), -1);
	assert_non_null(strstr(err.data, "the limit is"));
	assert_true(tls_host_is_ip("127.0.0.1"));
	assert_true(tls_host_is_ip("::1"));
	assert_false(tls_host_is_ip("localhost"));
	assert_false(tls_host_is_ip("[::1]"));
	buf_release(&err);
}

/* The message arrives byte for byte: CRLF, dot-stuffed once, no extra
 * empty line, whether it ends in LF, CRLF or nothing. */
static void delivers_byte_exact(void **state)
{
	static const char *const forms[] = {
		"From: bot <bot@example.org>\nSubject: test\n\nline one\n"
		".starts with a dot\n..two dots\n.\nlast line\n",
		"From: bot <bot@example.org>\r\nSubject: test\r\n\r\nline one\r\n"
		".starts with a dot\r\n..two dots\r\n.\r\nlast line\r\n",
		"From: bot <bot@example.org>\nSubject: test\n\nline one\n"
		".starts with a dot\n..two dots\n.\nlast line",
	};
	const char *rcpt[] = { "one@example.org", "two@example.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT, log = BUF_INIT;
	struct smtp_result res;
	char name[16], *raw, *env, *t;
	size_t i;

	peer_start(p, "plain", NULL, 0, NULL);
	o = options(p, SMTP_NONE);
	o.log = &log;
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	for (i = 0; i < N(forms); i++) {
		if (smtp_send(s, "bot@example.org", rcpt, 2, forms[i], strlen(forms[i]), &res,
			      &err) != SMTP_OK)
			fail_msg("form %zu: %s", i, err.data);
		assert_int_equal(res.status, SMTP_OK);
		assert_int_equal(res.code, 250);
		snprintf(name, sizeof(name), "M%zu", i + 1);
		assert_non_null(strstr(res.reply, name));
		assert_int_equal(res.nr_rcpt, 2);
		assert_int_equal(res.rcpt[0].code, 250);
		assert_int_equal(res.rcpt[1].status, SMTP_OK);
		smtp_result_release(&res);

		snprintf(name, sizeof(name), "%zu.raw", i + 1);
		raw = read_text(p->dir, name);
		assert_string_equal(raw, wire);
		free(raw);
	}
	smtp_close(s);

	env = read_text(p->dir, "1.env");
	assert_non_null(strstr(env, "MAIL FROM:<bot@example.org> SIZE="));
	assert_non_null(strstr(env, "RCPT TO:<one@example.org>\nRCPT TO:<two@example.org>\n"));
	/* The log shows MAIL FROM as it went out. */
	*strchr(env, '\n') = '\0';
	assert_non_null(strstr(log.data, env));
	free(env);
	t = transcript(p, 1);
	assert_non_null(strstr(t, "C: EHLO perfbot.test\n"));
	assert_null(strstr(t, "BARE-LF"));
	assert_non_null(strstr(t, "C: QUIT\n"));
	free(t);
	/* The log has the conversation, not the message. */
	assert_non_null(strstr(log.data, "> RCPT TO:<one@example.org>\n"));
	assert_non_null(strstr(log.data, "< 250 2.0.0 ok: queued as M1\n"));
	assert_null(strstr(log.data, "starts with a dot"));
	buf_release(&log);
	buf_release(&err);
}

/* Scripted replies to MAIL, RCPT, DATA and the end of data: the status
 * and the server's words; then the same connection sends the next mail
 * (RSET between). */
static void replies_decide_the_status(void **state)
{
	static const struct {
		const char *name;
		const char *args[8];
		const char *rcpt[4];
		int status, code;
		const char *reply;
		int rcpt_code[4];
		int data_sent;
	} cases[] = {
		{ "rcpt 550 and 451, others delivered",
		  { "--rcpt-reply", "bad@x.org=550 5.1.1 no such user",
		    "--rcpt-reply", "slow@x.org=451 4.3.0 try later" },
		  { "a@x.org", "bad@x.org", "slow@x.org", "b@x.org" },
		  SMTP_OK, 250, "2.0.0 ok: queued as M1", { 250, 550, 451, 250 }, 1 },
		{ "every rcpt 550",
		  { "--rcpt-reply", "bad@x.org=550 5.1.1 no such user" },
		  { "bad@x.org" },
		  SMTP_PERMANENT, 550, "5.1.1 no such user", { 550 }, 0 },
		{ "every rcpt refused, one with 451",
		  { "--rcpt-reply", "bad@x.org=550 5.1.1 no such user",
		    "--rcpt-reply", "slow@x.org=451 4.3.0 try later" },
		  { "bad@x.org", "slow@x.org" },
		  SMTP_TEMPORARY, 451, "4.3.0 try later", { 550, 451 }, 0 },
		{ "MAIL 451", { "--mail-reply", "451 4.3.0 later" }, { "a@x.org" },
		  SMTP_TEMPORARY, 451, "4.3.0 later", { 0 }, 0 },
		{ "MAIL 553", { "--mail-reply", "553 5.7.1 sender refused" }, { "a@x.org" },
		  SMTP_PERMANENT, 553, "5.7.1 sender refused", { 0 }, 0 },
		{ "DATA 451", { "--data-reply", "451 4.3.0 busy" }, { "a@x.org" },
		  SMTP_TEMPORARY, 451, "4.3.0 busy", { 250 }, 0 },
		{ "DATA 554", { "--data-reply", "554 5.5.0 no" }, { "a@x.org" },
		  SMTP_PERMANENT, 554, "5.5.0 no", { 250 }, 0 },
		{ "end of data 451", { "--end-reply", "451 4.3.0 busy, try later" },
		  { "a@x.org" }, SMTP_TEMPORARY, 451, "4.3.0 busy, try later", { 250 }, 1 },
		{ "end of data 554", { "--end-reply", "554 5.7.1 spam" }, { "a@x.org" },
		  SMTP_PERMANENT, 554, "5.7.1 spam", { 250 }, 1 },
	};
	struct peer *p = *state;
	size_t i, j, n;

	for (i = 0; i < N(cases); i++) {
		const char *next[] = { "next@x.org" };
		struct smtp_options o;
		struct smtp_session *s;
		struct buf err = BUF_INIT;
		struct smtp_result res;
		char *t;

		peer_start(p, "plain", NULL, 0, cases[i].args);
		o = options(p, SMTP_NONE);
		assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
		for (n = 0; n < N(cases[i].rcpt) && cases[i].rcpt[n]; n++)
			;
		if (send_one(s, cases[i].rcpt, n, &res, &err) != cases[i].status)
			fail_msg("%s: status %d: %s", cases[i].name, res.status, err.data);
		assert_int_equal(res.code, cases[i].code);
		assert_string_equal(res.reply, cases[i].reply);
		if (cases[i].status != SMTP_OK)
			assert_non_null(strstr(err.data, cases[i].reply));
		for (j = 0; j < n; j++) {
			assert_int_equal(res.rcpt[j].code, cases[i].rcpt_code[j]);
			assert_string_equal(res.rcpt[j].address, cases[i].rcpt[j]);
		}
		smtp_result_release(&res);

		/* The connection goes on. */
		if (send_one(s, next, 1, &res, &err) != SMTP_OK)
			fail_msg("%s: the next mail: %s", cases[i].name, err.data);
		smtp_result_release(&res);
		smtp_close(s);

		t = transcript(p, 1);
		if (cases[i].status != SMTP_OK)
			assert_true(count(t, "C: RSET\n") >= 1);
		assert_int_equal(count(t, "DATA: "), 1 + cases[i].data_sent);
		free(t);
		peer_stop(p);
		buf_release(&err);
	}
}

/* What the client must refuse before a byte goes out: line breaks and
 * other bytes that would inject commands or headers, and overlong values.
 * The connection stays usable. */
static void refuses_injection_before_sending(void **state)
{
	static const struct {
		const char *from, *rcpt, *mail, *why;
	} cases[] = {
		{ "bot@example.org", "a@x.org\r\nRCPT TO:<evil@x.org>", NULL, "line break" },
		{ "bot@example.org", "a@x.org\nBcc: evil@x.org", NULL, "line break" },
		{ "bot@example.org\r\nRSET", "a@x.org", NULL, "line break" },
		{ "bot@example.org", "a@x.org> NOTIFY=NEVER", NULL, "'<' or '>'" },
		{ "bot@example.org", "a b@x.org", NULL, "space" },
		{ "bot@example.org", "", NULL, "empty" },
		{ "bot@example.org", "j\xc3\xb6rg@x.org", NULL, "non-ASCII" },
		{ "bot@example.org", "@LONG", NULL, "longer than 254" },
		{ "bot@example.org", "a@x.org", "Subject: x\n\nnul \0 here\n", "NUL byte" },
		{ "bot@example.org", "a@x.org", "", "empty" },
	};
	const char *ok[] = { "a@x.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT, longer = BUF_INIT;
	struct smtp_result res;
	size_t i;
	char *t;

	buf_addchars(&longer, 'l', 64);
	buf_adds(&longer, "@");
	buf_addchars(&longer, 'd', 190);	/* 255 octets */
	peer_start(p, "plain", NULL, 0, NULL);
	o = options(p, SMTP_NONE);
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	for (i = 0; i < N(cases); i++) {
		const char *rcpt[1];
		const char *mail = cases[i].mail ? cases[i].mail : message;
		size_t len = cases[i].mail ? (i == 8 ? 24 : 0) : strlen(message);

		rcpt[0] = strcmp(cases[i].rcpt, "@LONG") ? cases[i].rcpt : longer.data;
		buf_reset(&err);
		if (smtp_send(s, cases[i].from, rcpt, 1, mail, len, &res, &err) != SMTP_PERMANENT)
			fail_msg("case %zu was sent", i);
		if (!strstr(err.data, cases[i].why))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.data, cases[i].why);
		assert_int_equal(res.code, 0);
		smtp_result_release(&res);
	}
	assert_int_equal(smtp_send(s, "bot@example.org", ok, 1, message, strlen(message), &res,
				   &err), SMTP_OK);
	smtp_result_release(&res);
	smtp_close(s);
	t = transcript(p, 1);
	/* One transaction: the good one. */
	assert_int_equal(count(t, "C: MAIL "), 1);
	assert_int_equal(count(t, "C: RCPT "), 1);
	assert_null(strstr(t, "evil"));
	free(t);
	buf_release(&longer);
	buf_release(&err);
}

/* Connections that work: plain to loopback, STARTTLS and implicit TLS
 * with the test CA, AUTH PLAIN and LOGIN; the message arrives intact. */
static void secure_connections_deliver(void **state)
{
	static const struct {
		const char *name, *mode;
		enum smtp_encryption encryption;
		const char *auth, *mechanism;
		const char *expect[4];
		size_t ehlos;
	} cases[] = {
		{ "starttls with the test CA", "starttls", SMTP_STARTTLS, NULL, NULL,
		  { "C: STARTTLS", "TLS: TLS", "SNI: -" }, 2 },
		{ "starttls, AUTH PLAIN", "starttls", SMTP_STARTTLS, "bot:s3cret pass", NULL,
		  { "C: AUTH PLAIN ", "S: 235 " }, 2 },
		{ "starttls, AUTH LOGIN", "starttls", SMTP_STARTTLS, "bot:s3cret pass", "LOGIN",
		  { "C: AUTH LOGIN", "S: 334 UGFzc3dvcmQ6", "S: 235 " }, 2 },
		{ "implicit TLS", "ssl", SMTP_SSL, "bot:s3cret pass", NULL,
		  { "TLS: TLS", "S: 235 " }, 1 },
		{ "plain with AUTH to loopback", "plain", SMTP_NONE, "bot:s3cret pass", NULL,
		  { "S: 235 " }, 1 },
	};
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	size_t i, j;

	for (i = 0; i < N(cases); i++) {
		const char *args[3] = { NULL };
		struct smtp_options o;
		struct smtp_session *s;
		struct buf err = BUF_INIT, log = BUF_INIT;
		struct smtp_result res;
		char *raw, *t, user[64];

		if (cases[i].auth) {
			args[0] = "--require-auth";
			args[1] = cases[i].auth;
		}
		peer_start(p, cases[i].mode, cases[i].mode[0] == 'p' ? NULL : "server", 0, args);
		o = options(p, cases[i].encryption);
		o.ca_file = ca_path();
		o.log = &log;
		if (cases[i].auth) {
			snprintf(user, sizeof(user), "%s", cases[i].auth);
			*strchr(user, ':') = '\0';
			o.user = user;
			o.password = strchr(cases[i].auth, ':') + 1;
			o.auth_mechanism = cases[i].mechanism;
		}
		if (smtp_open(&o, &s, &err) != SMTP_OK)
			fail_msg("%s: %s", cases[i].name, err.data);
		if (send_one(s, rcpt, 1, &res, &err) != SMTP_OK)
			fail_msg("%s: %s", cases[i].name, err.data);
		smtp_result_release(&res);
		smtp_close(s);

		raw = read_text(p->dir, "1.raw");
		assert_string_equal(raw, wire);
		free(raw);
		t = transcript(p, 1);
		for (j = 0; j < N(cases[i].expect) && cases[i].expect[j]; j++)
			if (!strstr(t, cases[i].expect[j]))
				fail_msg("%s: no \"%s\" in the transcript:\n%s", cases[i].name,
					 cases[i].expect[j], t);
		assert_int_equal(count(t, "C: EHLO perfbot.test"), cases[i].ehlos);
		free(t);
		/* Neither the password nor the AUTH exchange is logged. */
		assert_null(strstr(log.data, "s3cret"));
		assert_null(strstr(log.data, "< 334"));
		if (cases[i].auth)
			assert_non_null(strstr(log.data, "(credentials not logged)"));
		if (cases[i].encryption != SMTP_NONE)
			assert_non_null(strstr(log.data, "* TLS certificate of "));
		buf_release(&log);
		buf_release(&err);
		peer_stop(p);
	}
}

/*
 * With a host name the client sends it as SNI and checks the certificate
 * against it.  "localhost" must resolve to 127.0.0.1 alone (the tests
 * contact nothing else), else this is skipped.
 */
static void sni_names_the_server(void **state)
{
	const char *rcpt[] = { "a@x.org" };
	struct addrinfo hints = { 0 }, *ai, *a;
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT;
	struct smtp_result res;
	int only_127 = 1;
	char *t;

	hints.ai_socktype = SOCK_STREAM;
	assert_int_equal(getaddrinfo("localhost", "25", &hints, &ai), 0);
	for (a = ai; a; a = a->ai_next)
		if (a->ai_family != AF_INET ||
		    ((struct sockaddr_in *)a->ai_addr)->sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			only_127 = 0;
	freeaddrinfo(ai);
	if (!only_127) {
		print_message("skipped: localhost resolves to more than 127.0.0.1 here (::1?), "
			      "and these tests contact nothing else\n");
		skip();
	}
	peer_start(p, "starttls", "server", 0, NULL);
	o = options(p, SMTP_STARTTLS);
	o.server = "localhost";
	o.ca_file = ca_path();
	if (smtp_open(&o, &s, &err) != SMTP_OK)
		fail_msg("%s", err.data);
	assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_OK);
	smtp_result_release(&res);
	smtp_close(s);
	t = transcript(p, 1);
	assert_non_null(strstr(t, "SNI: localhost\n"));
	free(t);
	buf_release(&err);
}

/* Connections that must fail, how (temporary or permanent, and why), how
 * fast, and what the server must never have seen. */
static void refused_connections(void **state)
{
	static const struct {
		const char *name, *mode, *cert;
		const char *args[6];
		enum smtp_encryption encryption;
		int system_trust;		/* no caFile */
		const char *auth;		/* user:password */
		const char *server, *helo;
		int timeout;
		int status;
		const char *why;
		const char *never[4];		/* never in the transcript */
		int quiet_after_tls;		/* no client line after the handshake */
		double min_s, max_s;
	} cases[] = {
		{ "silent server", "plain", NULL, { "--silent" }, SMTP_NONE, 0, NULL, NULL, NULL,
		  1, SMTP_TEMPORARY, "no reply to the greeting within 1 s", { "C: " }, 0, 0.9, 4 },
		{ "silent at EHLO, before STARTTLS", "starttls", "server", { "--silent-at", "EHLO" },
		  SMTP_STARTTLS, 0, NULL, NULL, NULL, 1, SMTP_TEMPORARY,
		  "no reply to EHLO within 1 s", { "C: STARTTLS" }, 0, 0.9, 4 },
		{ "silent in the TLS handshake", "starttls", "server", { "--silent-at", "TLS" },
		  SMTP_STARTTLS, 0, NULL, NULL, NULL, 1, SMTP_TEMPORARY,
		  "TLS handshake not done within 1 s", { "TLS: " }, 0, 0.9, 4 },
		{ "ssl to a silent server", "plain", NULL, { "--silent" }, SMTP_SSL, 0, NULL, NULL,
		  NULL, 1, SMTP_TEMPORARY, "TLS handshake not done within 1 s", { "C: " }, 0, 0.9, 4 },
		{ "greeting 421", "plain", NULL, { "--greeting", "421 4.3.2 busy" }, SMTP_NONE, 0,
		  NULL, NULL, NULL, 5, SMTP_TEMPORARY, "421 4.3.2 busy", { "C: " }, 0, 0, 4 },
		{ "greeting 554", "plain", NULL, { "--greeting", "554 5.7.1 go away" }, SMTP_NONE, 0,
		  NULL, NULL, NULL, 5, SMTP_PERMANENT, "554 5.7.1 go away", { "C: " }, 0, 0, 4 },
		{ "starttls, self-signed certificate", "starttls", "self", { "--auth" },
		  SMTP_STARTTLS, 0, "bot:pw", NULL, NULL, 5, SMTP_PERMANENT, "issuer unknown",
		  { "C: AUTH", "C: MAIL" }, 1, 0, 4 },
		{ "starttls, self-signed, system trust", "starttls", "self", { "--auth" },
		  SMTP_STARTTLS, 1, "bot:pw", NULL, NULL, 5, SMTP_PERMANENT, "issuer unknown",
		  { "C: AUTH", "C: MAIL" }, 1, 0, 4 },
		{ "starttls, test CA, system trust", "starttls", "server", { NULL },
		  SMTP_STARTTLS, 1, NULL, NULL, NULL, 5, SMTP_PERMANENT, "issuer unknown",
		  { "C: MAIL" }, 1, 0, 4 },
		{ "starttls, wrong host name", "starttls", "wrong", { "--auth" }, SMTP_STARTTLS, 0,
		  "bot:pw", NULL, NULL, 5, SMTP_PERMANENT, "issued for another host name",
		  { "C: AUTH", "C: MAIL" }, 1, 0, 4 },
		{ "starttls not offered", "plain", NULL, { "--auth" }, SMTP_STARTTLS, 0, "bot:pw",
		  NULL, NULL, 5, SMTP_PERMANENT, "does not offer STARTTLS",
		  { "C: STARTTLS", "C: AUTH", "C: MAIL" }, 0, 0, 4 },
		{ "starttls 454", "starttls", "server",
		  { "--auth", "--starttls-reply", "454 4.7.0 TLS not available" }, SMTP_STARTTLS,
		  0, "bot:pw", NULL, NULL, 5, SMTP_TEMPORARY, "454 4.7.0 TLS not available",
		  { "C: AUTH", "C: MAIL", "TLS: " }, 0, 0, 4 },
		{ "starttls response injection", "starttls", "server",
		  { "--auth", "--starttls-inject", "250 injected" }, SMTP_STARTTLS, 0, "bot:pw",
		  NULL, NULL, 5, SMTP_PERMANENT, "injection",
		  { "C: AUTH", "C: MAIL", "TLS: " }, 0, 0, 4 },
		{ "ssl, self-signed certificate", "ssl", "self", { NULL }, SMTP_SSL, 0, NULL,
		  NULL, NULL, 5, SMTP_PERMANENT, "issuer unknown", { "C: " }, 1, 0, 4 },
		{ "ssl, wrong host name", "ssl", "wrong", { NULL }, SMTP_SSL, 0, NULL, NULL, NULL,
		  5, SMTP_PERMANENT, "issued for another host name", { "C: " }, 1, 0, 4 },
		{ "ssl to a plain server", "plain", NULL, { NULL }, SMTP_SSL, 0, NULL, NULL, NULL,
		  5, SMTP_TEMPORARY, "TLS handshake failed", { "C: EHLO", "C: MAIL" }, 0, 0, 4 },
		{ "wrong password", "starttls", "server", { "--require-auth", "bot:right" },
		  SMTP_STARTTLS, 0, "bot:wrong", NULL, NULL, 5, SMTP_PERMANENT,
		  "535 5.7.8 authentication credentials invalid", { "C: MAIL" }, 0, 0, 4 },
		{ "AUTH not offered", "plain", NULL, { NULL }, SMTP_NONE, 0, "bot:pw", NULL, NULL,
		  5, SMTP_PERMANENT, "does not offer AUTH PLAIN", { "C: AUTH", "C: MAIL" }, 0, 0, 4 },
		{ "none to a non-loopback address", "plain", NULL, { NULL }, SMTP_NONE, 0, NULL,
		  "192.0.2.1", NULL, 5, SMTP_PERMANENT, "only allowed to a loopback server",
		  { "CONNECT" }, 0, 0, 0.5 },
		{ "CR LF in the EHLO name", "plain", NULL, { NULL }, SMTP_NONE, 0, NULL, NULL,
		  "perfbot.test\r\nMAIL FROM:<x@y>", 5, SMTP_PERMANENT, "EHLO name",
		  { "CONNECT" }, 0, 0, 0.5 },
		{ "CR LF in the user name", "plain", NULL, { "--auth" }, SMTP_NONE, 0,
		  "bot\r\nMAIL FROM:<x@y>:pw", NULL, NULL, 5, SMTP_PERMANENT, "smtp user",
		  { "CONNECT" }, 0, 0, 0.5 },
		{ "nobody listening", "plain", NULL, { NULL }, SMTP_NONE, 0, NULL, "CLOSED", NULL,
		  5, SMTP_TEMPORARY, "cannot connect: Connection refused", { "CONNECT" }, 0, 0, 1 },
	};
	struct peer *p = *state;
	size_t i, j;

	for (i = 0; i < N(cases); i++) {
		struct smtp_options o;
		struct smtp_session *s = NULL;
		struct buf err = BUF_INIT, log = BUF_INIT;
		char user[64], *t, *tls;
		double start, took;
		int st;

		peer_start(p, cases[i].mode, cases[i].cert, 0, cases[i].args);
		o = options(p, cases[i].encryption);
		o.timeout = cases[i].timeout;
		o.ca_file = cases[i].system_trust ? NULL : ca_path();
		o.log = &log;
		if (cases[i].helo)
			o.helo_name = cases[i].helo;
		if (cases[i].auth) {
			snprintf(user, sizeof(user), "%s", cases[i].auth);
			*strrchr(user, ':') = '\0';
			o.user = user;
			o.password = strrchr(cases[i].auth, ':') + 1;
		}
		if (cases[i].server && !strcmp(cases[i].server, "CLOSED")) {
			/* A port nobody listens on: bound, then closed. */
			struct sockaddr_in sa = { 0 };
			socklen_t len = sizeof(sa);
			int fd = socket(AF_INET, SOCK_STREAM, 0);

			sa.sin_family = AF_INET;
			sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
			assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
			o.port = ntohs(sa.sin_port);
			close(fd);
		} else if (cases[i].server) {
			o.server = cases[i].server;
		}

		start = now();
		st = smtp_open(&o, &s, &err);
		took = now() - start;
		if (st != cases[i].status)
			fail_msg("%s: status %d, not %d: %s", cases[i].name, st, cases[i].status,
				 err.data);
		assert_null(s);
		if (!strstr(err.data, cases[i].why))
			fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].name, err.data,
				 cases[i].why);
		if (took < cases[i].min_s || took > cases[i].max_s)
			fail_msg("%s: took %.2f s, not %.1f..%.1f", cases[i].name, took,
				 cases[i].min_s, cases[i].max_s);

		/* The peer sees the end of a connection only when there was one. */
		t = transcript(p, strcmp(cases[i].never[0], "CONNECT") ? 1 : 0);
		for (j = 0; j < N(cases[i].never) && cases[i].never[j]; j++)
			if (strstr(t, cases[i].never[j]))
				fail_msg("%s: \"%s\" in the transcript:\n%s", cases[i].name,
					 cases[i].never[j], t);
		if (cases[i].quiet_after_tls) {
			tls = strstr(t, "TLS: ");
			if (!tls)
				fail_msg("%s: no TLS handshake in the transcript:\n%s",
					 cases[i].name, t);
			if (strstr(tls, "C: "))
				fail_msg("%s: the client said something after the handshake:\n%s",
					 cases[i].name, t);
		}
		free(t);
		if (strstr(log.data, "pw") || strstr(log.data, "right"))
			fail_msg("%s: the log shows the password:\n%s", cases[i].name, log.data);
		buf_release(&log);
		buf_release(&err);
		peer_stop(p);
	}
}

/*
 * The connection drops in the middle of DATA: temporary, "may or may not
 * have been delivered", and the dead session fails fast afterwards.  The
 * drop right after 354 closes with a FIN, so the client's second write
 * raises SIGPIPE, which must not kill the process.
 */
static void drop_mid_data_is_temporary(void **state)
{
	static const char *const drops[] = { "1000", "0" };
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	struct buf big = BUF_INIT;
	size_t d;
	int i;

	buf_adds(&big, "Subject: big\n\n");
	for (i = 0; i < 40000; i++)
		buf_adds(&big, "0123456789 0123456789 0123456789 0123456789 0123456789\n");
	for (d = 0; d < N(drops); d++) {
		const char *args[] = { "--drop-after-data-bytes", drops[d], NULL };
		struct smtp_options o;
		struct smtp_session *s;
		struct buf err = BUF_INIT;
		struct smtp_result res;
		double start;

		peer_start(p, "plain", NULL, 0, args);
		o = options(p, SMTP_NONE);
		assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
		assert_int_equal(smtp_send(s, "bot@example.org", rcpt, 1, big.data, big.len, &res,
					   &err), SMTP_TEMPORARY);
		assert_int_equal(res.code, 0);
		assert_int_equal(res.rcpt[0].code, 250);
		assert_non_null(strstr(err.data, "may or may not have been delivered"));
		assert_false(smtp_alive(s));
		smtp_result_release(&res);

		start = now();
		assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_TEMPORARY);
		assert_true(now() - start < 0.1);
		assert_non_null(strstr(err.data, "lost earlier"));
		assert_int_equal(res.rcpt[0].status, SMTP_TEMPORARY);
		smtp_result_release(&res);
		smtp_close(s);
		buf_release(&err);
		peer_stop(p);
	}
	buf_release(&big);
}

/* No reply after the final dot: temporary after the timeout. */
static void silence_after_data_times_out(void **state)
{
	const char *args[] = { "--silent-at", "END", NULL };
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT;
	struct smtp_result res;
	double start, took;

	peer_start(p, "plain", NULL, 0, args);
	o = options(p, SMTP_NONE);
	o.timeout = 1;
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	start = now();
	assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_TEMPORARY);
	took = now() - start;
	assert_true(took >= 0.9 && took < 4);
	assert_non_null(strstr(err.data, "within 1 s"));
	assert_non_null(strstr(err.data, "may or may not"));
	smtp_result_release(&res);
	smtp_close(s);
	buf_release(&err);
}

/* A reply that never ends (one endless line, or endless continuation
 * lines) ends the session once SMTP_REPLY_BYTES_MAX bytes came, at once:
 * the bytes keep coming, so no timeout would. */
static void endless_replies_are_cut(void **state)
{
	static const struct {
		const char *verb;
		int lines;
	} cases[] = { { "GREETING", 0 }, { "GREETING", 1 }, { "MAIL", 0 }, { "MAIL", 1 } };
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		const char *args[] = { "--flood-at", cases[i].verb, cases[i].lines ? "--flood-lines" : NULL,
				       NULL };
		struct smtp_options o;
		struct smtp_session *s = NULL;
		struct buf err = BUF_INIT;
		struct smtp_result res;
		double start = now();
		int r;

		peer_start(p, "plain", NULL, 0, args);
		o = options(p, SMTP_NONE);
		o.timeout = 30;
		r = smtp_open(&o, &s, &err);
		if (!strcmp(cases[i].verb, "GREETING")) {
			assert_int_equal(r, SMTP_TEMPORARY);
		} else {
			assert_int_equal(r, SMTP_OK);
			assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_TEMPORARY);
			assert_false(smtp_alive(s));
			smtp_result_release(&res);
		}
		if (!strstr(err.data, "passed 65536 bytes"))
			fail_msg("case %zu: %s", i, err.data);
		assert_true(now() - start < 5);
		smtp_close(s);
		buf_release(&err);
		peer_stop(p);
	}
}

/* 1000 small mails over one connection; prints the rate. */
/* The gate runs after the recipients and before DATA: when it holds the
 * mail, nothing reaches the server and the session sends the next one. */
static int gate_calls;
static int gate_hold;

static int gate(void *ctx, struct buf *err)
{
	gate_calls++;
	assert_string_equal(ctx, "ctx");
	return gate_hold ? err_set(err, "the database refused") : 0;
}

static void gate_holds_before_data(void **state)
{
	static char ctx[] = "ctx";
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT;
	struct smtp_result res;
	char *t;

	peer_start(p, "plain", NULL, 0, NULL);
	o = options(p, SMTP_NONE);
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	smtp_set_gate(s, gate, ctx);
	gate_calls = 0;
	gate_hold = 1;
	assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_TEMPORARY);
	assert_int_equal(gate_calls, 1);
	assert_non_null(strstr(err.data, "held back before DATA: the database refused"));
	assert_int_equal(res.code, 0);
	smtp_result_release(&res);
	assert_true(smtp_alive(s));
	gate_hold = 0;
	assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_OK);
	assert_int_equal(gate_calls, 2);
	smtp_result_release(&res);
	smtp_set_gate(s, NULL, NULL);
	assert_int_equal(send_one(s, rcpt, 1, &res, &err), SMTP_OK);
	assert_int_equal(gate_calls, 2);
	smtp_result_release(&res);
	smtp_close(s);
	/* one DATA for the two mails sent; the held one was reset */
	t = transcript(p, 1);
	assert_non_null(strstr(t, "C: RSET\n"));
	assert_non_null(strstr(t, "C: DATA\n"));
	assert_null(strstr(strstr(strstr(t, "C: DATA\n") + 1, "C: DATA\n") + 1, "C: DATA\n"));
	assert_true(strstr(t, "C: RSET\n") < strstr(t, "C: DATA\n"));
	free(t);
	buf_release(&err);
}

static void thousand_mails_over_one_connection(void **state)
{
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT;
	struct smtp_result res;
	double start, took;
	int i;

	peer_start(p, "plain", NULL, 1, NULL);
	o = options(p, SMTP_NONE);
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	start = now();
	for (i = 0; i < 1000; i++) {
		if (send_one(s, rcpt, 1, &res, &err) != SMTP_OK)
			fail_msg("mail %d: %s", i, err.data);
		if (i == 999)
			assert_string_equal(res.reply, "2.0.0 ok: queued as M1000");
		smtp_result_release(&res);
	}
	took = now() - start;
	smtp_close(s);
	print_message("1000 mails over one connection to smtp-peer.py: %.2f s, %.0f msgs/s\n",
		      took, 1000 / took);
	buf_release(&err);
}

/*
 * Mails larger than libetpan's 8 KB write buffer go out in two writes;
 * without TCP_NODELAY the second waits for the server's delayed ACK,
 * about 40 ms a mail.  100 such mails must take well under 4 s.
 */
static void large_mails_do_not_stall(void **state)
{
	const char *rcpt[] = { "a@x.org" };
	struct peer *p = *state;
	struct smtp_options o;
	struct smtp_session *s;
	struct buf err = BUF_INIT, big = BUF_INIT;
	struct smtp_result res;
	double start, took;
	int i;

	buf_adds(&big, "Subject: 12 KB\n\n");
	while (big.len < 12000)
		buf_adds(&big, "The quick brown fox jumps over the lazy dog 0123456789\n");
	peer_start(p, "plain", NULL, 1, NULL);
	o = options(p, SMTP_NONE);
	assert_int_equal(smtp_open(&o, &s, &err), SMTP_OK);
	start = now();
	for (i = 0; i < 100; i++) {
		if (smtp_send(s, "bot@example.org", rcpt, 1, big.data, big.len, &res, &err))
			fail_msg("mail %d: %s", i, err.data);
		smtp_result_release(&res);
	}
	took = now() - start;
	smtp_close(s);
	print_message("100 mails of 12 KB: %.2f s\n", took);
	if (took > 2)
		fail_msg("100 mails of 12 KB took %.2f s: a Nagle stall?", took);
	buf_release(&big);
	buf_release(&err);
}

static void close_accepts_null(void **state)
{
	(void)state;
	smtp_close(NULL);
	assert_string_equal(smtp_status_name(SMTP_TEMPORARY), "temporary");
}

/* The EHLO name without smtp.heloName: a dotted name that is not
 * localhost's, else localhost to loopback only, else the address literal. */
static void helo_default_rules(void **state)
{
	static const struct {
		const char *host, *canonical, *literal;
		int loopback;
		const char *want;
	} cases[] = {
		{ "ci", "ci.lab.example.org", "[192.0.2.7]", 0, "ci.lab.example.org" },
		{ "ci.lab.example.org", NULL, "[192.0.2.7]", 0, "ci.lab.example.org" },
		{ "ci", "ci", "[192.0.2.7]", 0, "[192.0.2.7]" },
		{ "ci", NULL, "[192.0.2.7]", 1, "localhost" },
		{ "localhost", "localhost.localdomain", "[192.0.2.7]", 0, "[192.0.2.7]" },
		{ "localhost", "localhost.localdomain", "[127.0.0.1]", 1, "localhost" },
		{ "ci", NULL, "[IPv6:2001:db8::7]", 0, "[IPv6:2001:db8::7]" },
		{ "", NULL, "", 0, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[300];
		int r = smtp_helo_choose(cases[i].host, cases[i].canonical, cases[i].literal,
					 cases[i].loopback, out, sizeof(out));

		if (!cases[i].want) {
			assert_int_equal(r, -1);
			continue;
		}
		assert_int_equal(r, 0);
		assert_string_equal(out, cases[i].want);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(helo_default_rules),
		cmocka_unit_test(tls_verify_chain_decides),
		cmocka_unit_test(tls_limits),
		cmocka_unit_test_setup_teardown(delivers_byte_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(replies_decide_the_status, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_injection_before_sending, setup, teardown),
		cmocka_unit_test_setup_teardown(secure_connections_deliver, setup, teardown),
		cmocka_unit_test_setup_teardown(sni_names_the_server, setup, teardown),
		cmocka_unit_test_setup_teardown(refused_connections, setup, teardown),
		cmocka_unit_test_setup_teardown(drop_mid_data_is_temporary, setup, teardown),
		cmocka_unit_test_setup_teardown(endless_replies_are_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(silence_after_data_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(gate_holds_before_data, setup, teardown),
		cmocka_unit_test_setup_teardown(thousand_mails_over_one_connection, setup,
						teardown),
		cmocka_unit_test_setup_teardown(large_mails_do_not_stall, setup, teardown),
		cmocka_unit_test(close_accepts_null),
	};
	char *slash;

	/* The tree is two levels above tests/unit/test-smtp. */
	(void)argc;
	if (!realpath(argv[0], top))
		return 1;
	for (int up = 0; up < 3; up++) {
		slash = strrchr(top, '/');
		if (slash)
			*slash = '\0';
	}
	atexit(stop_running);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
