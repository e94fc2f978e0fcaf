# perfbot: plain Makefile.  `make`, `make check`, `make bench`, `make fuzz`,
# `make install PREFIX=/usr/local DESTDIR=...`, `make clean`.
# Switches: DEVELOPER=1 (warnings are errors), SANITIZE=address,undefined.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/perfbot
MANDIR ?= $(PREFIX)/share/man

CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config

override CFLAGS += -std=c11 -D_GNU_SOURCE -pthread -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wno-missing-field-initializers -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEVELOPER),1)
override CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SANITIZE)
endif

# The templates folder the binary looks in when perfbot.templates is unset:
# the source tree's for a plain build, DATADIR's for an installed one.
TEMPLATE_DIR ?= $(CURDIR)/templates
override CPPFLAGS += -DPERFBOT_TEMPLATE_DIR='"$(TEMPLATE_DIR)"'

LIBS_PC := jansson libgit2 sqlite3 gnutls zlib
override CFLAGS += $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null) -letpan -lm -pthread

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

$(LIB): $(OBJ)
	rm -f $@
	$(AR) rcs $@ $(OBJ)

perfbot: bot/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ bot/main.o $(LIB) $(LIBS)

tests/unit/test-%: tests/unit/test-%.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS) -lcmocka

# The README's first command: a report rendered from the built-in demo.
demo: perfbot
	@sh config/demo.sh ./perfbot

# The inputs that found bugs (tests/fuzz/regressions/NAME/), replayed by
# `make check` through their target built with $(CC), without libFuzzer.
REPLAY_BIN := $(patsubst tests/fuzz/regressions/%,tests/fuzz/replay-%,$(wildcard tests/fuzz/regressions/*))
tests/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c $(LIB) $(HDR) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ibot -o $@ $< tests/fuzz/replay.c $(LIB) $(LDFLAGS) $(LIBS)

check: perfbot $(UNIT_BIN) $(REPLAY_BIN)
	@sh tests/run.sh

# The unit tests alone (cmocka; a few seconds).
unit: $(UNIT_BIN)
	@sh tests/run.sh --unit

tests/bench/bench-render: tests/bench/bench-render.c $(LIB) Makefile
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Ibot -o $@ $< $(LIB) $(LDFLAGS) $(LIBS)

bench: perfbot tests/bench/bench-render
	@sh tests/bench/run.sh

# libFuzzer targets (clang).  FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 120
FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN := $(FUZZ_SRC:.c=)
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null) -DPERFBOT_TEMPLATE_DIR='"$(TEMPLATE_DIR)"'
tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(SRC) $(HDR)
	clang $(FUZZ_CFLAGS) -Ibot -o $@ $< $(SRC) $(LIBS)
fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

install: perfbot
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/templates $(DESTDIR)$(DATADIR)/config
	$(MAKE) --no-print-directory TEMPLATE_DIR=$(DATADIR)/templates perfbot-installed
	install -m 755 perfbot-installed $(DESTDIR)$(BINDIR)/perfbot
	install -m 644 templates/*.txt $(DESTDIR)$(DATADIR)/templates/
	install -m 644 config/* $(DESTDIR)$(DATADIR)/config/
	if [ -d man ]; then install -d $(DESTDIR)$(MANDIR)/man1 && install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/; fi

# The installed binary is built apart so it carries DATADIR's templates.
perfbot-installed: bot/main.c $(SRC) $(HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ bot/main.c $(SRC) $(LDFLAGS) $(LIBS)

-include $(OBJ:.o=.d) bot/main.d $(UNIT_BIN:=.d) tests/bench/bench-render.d

clean:
	rm -f perfbot perfbot-installed bot/*.o bot/*.d tests/unit/*.d tests/bench/*.d $(LIB) $(UNIT_BIN) $(FUZZ_BIN) $(REPLAY_BIN) tests/bench/bench-render
	rm -rf tests/fuzz/corpus-*/.tmp

.PHONY: all demo check unit bench fuzz install clean
