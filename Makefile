# perfbot: plain Makefile.  `make`, `make check`, `make bench`, `make fuzz`,
# `make install PREFIX=/usr/local DESTDIR=...`, `make clean`.
# Switches: DEVELOPER=1 (warnings are errors), SANITIZE=address,undefined,
# STATIC=0 (every library linked shared).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/perfbot
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/perfbot
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
AWK ?= awk

override CFLAGS += -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wno-missing-field-initializers -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEVELOPER),1)
override CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SANITIZE)
endif

VERSION = 0.2.0
override CPPFLAGS += -DPERFBOT_VERSION='"$(VERSION)"'

# The templates folder the binary looks in when perfbot.templates is unset:
# the source tree's for a plain build, DATADIR's for an installed one.
TEMPLATE_DIR ?= $(CURDIR)/templates
override CPPFLAGS += -DPERFBOT_TEMPLATE_DIR='"$(TEMPLATE_DIR)"'
# Where `perfbot help` looks for the manual pages first: the source tree's
# man/ for a plain build, MANDIR for an installed one (bot/cmd-help.c).
MAN_PAGE_DIR ?= $(CURDIR)/man
override CPPFLAGS += -DPERFBOT_MAN_DIR='"$(MAN_PAGE_DIR)"'

LIBS_PC := jansson libgit2 sqlite3 gnutls zlib libpcre2-8
override CFLAGS += $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
# The libraries Debian 12 ships as static archives (in the -dev packages
# install-deps.sh installs) are linked into the binary; the rest stay
# shared.  Every library mapped costs the start of every process: with
# all 35 shared, the dynamic loader spent 18 M instructions (12,000 symbol
# relocations) before main(), more than `git log` takes to walk 100
# commits; linked this way `perfbot --version` takes 2.2 M.  Shared:
# libsasl2 (it loads its mechanisms as plug-ins, which need its one
# copy), libp11-kit (GnuTLS's trust store, plug-ins too), and what Debian
# ships no archive of (libgssapi_krb5, which libgit2 needs, and its
# kin).  --wrap sends libgit2's reading of the system's CA bundle at
# start to bot/gitlib-ca.c (it says why).  STATIC=0 links every library
# shared, as pkg-config says.
STATIC ?= 1
LIBS_STATIC := git2 mbedtls mbedx509 mbedcrypto ssh2 http_parser pcre2-8 jansson sqlite3 etpan \
	lockfile gnutls hogweed nettle gmp tasn1 idn2 unistring crypto z
LIBS_SHARED := sasl2 gssapi_krb5 p11-kit m
ifeq ($(STATIC),0)
LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null) -letpan -lm -pthread
else
override CPPFLAGS += -DPERFBOT_STATIC=1
LIBS := -Wl,--wrap=mbedtls_x509_crt_parse_file -Wl,-u,__wrap_mbedtls_x509_crt_parse_file -Wl,--as-needed \
	-Wl,-Bstatic $(LIBS_STATIC:%=-l%) -Wl,-Bdynamic $(LIBS_SHARED:%=-l%) -pthread
endif

SRC := $(filter-out bot/main.c,$(wildcard bot/*.c))
OBJ := $(SRC:.c=.o)
HDR := $(wildcard bot/*.h)
LIB := bot/libperfbot.a

UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:.c=)

all: perfbot

# Each object depends on the headers it includes (-MMD -MP writes bot/x.d),
# so touching one header rebuilds only its users.
DEPFLAGS = -MMD -MP

bot/%.o: bot/%.c Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The built-in polarity table: config/polarity.tbl turned into C rows at
# build time, so an installed binary needs no data file.  A malformed line
# stops the build with its file and line number.  Characters are written
# one by one (not with gsub) because awks disagree on backslashes in
# gsub's replacement; '?' is escaped so that no "??x" becomes a trigraph.
GENERATED := bot/polarity-table.h
bot/polarity-table.h: config/polarity.tbl Makefile
	LC_ALL=C $(AWK) ' \
	BEGIN { print "/* Generated from config/polarity.tbl by the Makefile: do not edit. */" } \
	/^#/ || /^$$/ { next } \
	{ \
		sp = index($$0, " "); dir = substr($$0, 1, sp - 1); pat = substr($$0, sp + 1); \
		ok = sp > 1 && (dir == "higher" || dir == "lower") && pat != "" && pat !~ /^ / && pat !~ / $$/; \
		out = ""; \
		for (i = 1; ok && i <= length(pat); i++) { \
			c = substr(pat, i, 1); \
			if (c < " " || c > "~") ok = 0; \
			else if (c == "\\" || c == "\"" || c == "?") out = out "\\" c; \
			else out = out c; \
		} \
		if (!ok) { \
			printf "%s:%d: not \"higher PATTERN\" or \"lower PATTERN\" (printable ASCII, one space)\n", \
				FILENAME, FNR > "/dev/stderr"; \
			bad = 1; next; \
		} \
		printf "\t{ \"%s\", %d },\n", out, dir == "higher"; \
	} \
	END { exit bad }' config/polarity.tbl >$@+
	mv $@+ $@
bot/config.o: bot/polarity-table.h

$(LIB): $(OBJ)
	rm -f $@
	$(AR) rcs $@ $(OBJ)

perfbot: bot/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ bot/main.o $(LIB) $(LIBS)

tests/unit/test-%: tests/unit/test-%.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS) -lcmocka

# A page of charts drawn by bot/chart.c, for tests/t/chart.sh and
# tests/t/chart-browser.sh.
tests/helpers/chart-page: tests/helpers/chart-page.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

# The README's first command: a report rendered from the built-in demo.
# The build's own lines go to stderr, so stdout is the mail alone.
demo:
	@$(MAKE) --no-print-directory perfbot >&2
	@sh config/demo.sh ./perfbot

# The inputs that found bugs (tests/fuzz/regressions/NAME/), replayed by
# `make check` through their target built with $(CC), without libFuzzer.
REPLAY_BIN := $(patsubst tests/fuzz/regressions/%,tests/fuzz/replay-%,$(wildcard tests/fuzz/regressions/*))
tests/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c $(LIB) $(HDR) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ibot -o $@ $< tests/fuzz/replay.c $(LIB) $(LDFLAGS) $(LIBS)

check: perfbot $(UNIT_BIN) $(REPLAY_BIN) tests/helpers/chart-page tests/bench/bench-site
	@sh tests/run.sh

# A long soak of the cron cycle with faults and kills (tests/t/soak.sh;
# `make check` runs a short one): make soak SEED=N ROUNDS=N.
SEED ?= 1
ROUNDS ?= 300
soak: perfbot
	@SEED=$(SEED) ROUNDS=$(ROUNDS) sh tests/t/soak.sh

# The unit tests alone (cmocka; a few seconds).
unit: $(UNIT_BIN)
	@sh tests/run.sh --unit

tests/bench/bench-render: tests/bench/bench-render.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

# What MAINTAINERS routing costs a render (tests/bench/bench-route.c).
tests/bench/bench-route: tests/bench/bench-route.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

# perfbot track beside git log (tests/bench/track.sh runs it).
tests/bench/bench-track: tests/bench/bench-track.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

# The state perfbot site is timed on (tests/bench/site.sh), and a small one
# tests/t/site-spare.sh runs on.
tests/bench/bench-site: tests/bench/bench-site.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

bench: perfbot tests/bench/bench-render tests/bench/bench-route tests/bench/bench-site
	@sh tests/bench/run.sh

# libFuzzer targets (clang).  FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 120
FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN := $(FUZZ_SRC:.c=)
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null) -DPERFBOT_TEMPLATE_DIR='"$(TEMPLATE_DIR)"'
tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(SRC) $(HDR) $(GENERATED)
	clang $(FUZZ_CFLAGS) -DPERFBOT_VERSION='"$(VERSION)"' -Ibot -o $@ $< $(SRC) $(LIBS)
fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

# What `make install` puts where (DESTDIR is prepended to each):
#   BINDIR/perfbot, DATADIR/templates (the shipped templates and their
#   README), DATADIR/config (the example configuration and the demo),
#   MANDIR/man{1,5,7}, DOCDIR (README.md, the crontab example),
#   BASHCOMPDIR/perfbot, SYSTEMDDIR (services and timers).
DEMO_FILES := config/perfbot.conf.example config/demo.conf config/demo.sh \
	config/demo-report.json config/make-demo-repo.sh
UNITS := $(wildcard config/systemd/*.service config/systemd/*.timer)
MAN_PAGES := $(wildcard man/*.1 man/*.5 man/*.7)

install:
	$(MAKE) --no-print-directory TEMPLATE_DIR=$(DATADIR)/templates MAN_PAGE_DIR=$(MANDIR) \
		perfbot-installed
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/templates $(DESTDIR)$(DATADIR)/config \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDDIR)
	install -m 755 perfbot-installed $(DESTDIR)$(BINDIR)/perfbot
	install -m 644 templates/*.txt templates/README $(DESTDIR)$(DATADIR)/templates/
	install -d $(DESTDIR)$(DATADIR)/templates/site
	install -m 644 templates/site/*.html templates/site/*.xml $(DESTDIR)$(DATADIR)/templates/site/
	install -m 644 $(DEMO_FILES) $(DESTDIR)$(DATADIR)/config/
	install -m 644 README.md config/perfbot.cron config/perfbot.conf.example $(DESTDIR)$(DOCDIR)/
	install -m 644 config/perfbot.bash-completion $(DESTDIR)$(BASHCOMPDIR)/perfbot
	for u in $(UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' $$u >$(DESTDIR)$(SYSTEMDDIR)/$$(basename $$u) && \
		chmod 644 $(DESTDIR)$(SYSTEMDDIR)/$$(basename $$u) || exit 1; \
	done
	for p in $(MAN_PAGES); do \
		s=$${p##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 644 $$p $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfbot $(DESTDIR)$(BASHCOMPDIR)/perfbot
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	for u in $(UNITS); do rm -f $(DESTDIR)$(SYSTEMDDIR)/$$(basename $$u); done
	for p in $(MAN_PAGES); do s=$${p##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$p); done

# The installed binary is built apart so it carries DATADIR's templates.
perfbot-installed: bot/main.c $(SRC) $(HDR) $(GENERATED) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ bot/main.c $(SRC) $(LDFLAGS) $(LIBS)

-include $(OBJ:.o=.d) bot/main.d $(UNIT_BIN:=.d) tests/helpers/chart-page.d tests/bench/bench-render.d tests/bench/bench-route.d tests/bench/bench-track.d tests/bench/bench-site.d

clean:
	rm -f perfbot perfbot-installed bot/*.o bot/*.d tests/unit/*.d tests/bench/*.d $(LIB) $(UNIT_BIN) $(FUZZ_BIN) $(REPLAY_BIN) tests/bench/bench-render tests/bench/bench-route \
		tests/bench/bench-track tests/bench/bench-site \
		tests/helpers/chart-page tests/helpers/chart-page.d
	rm -f $(GENERATED) bot/polarity-table.h+
	rm -rf tests/fuzz/corpus-*/.tmp

.PHONY: all demo check soak unit bench fuzz install uninstall clean
