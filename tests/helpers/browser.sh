# browser.sh: headless Chromium for the shell tests (sourced, not run; needs
# $top, the repository's top folder).  Every function takes a local file,
# starts its own browser with a fresh profile in a temporary folder (two
# tests at once never share one; as root with --no-sandbox, which
# Chromium's sandbox needs there) and stops it before returning; a hung
# browser is stopped after $BROWSER_TIMEOUT seconds (default 120), a guard
# and not a measurement.
#
# What works with Debian 12's chromium 156 headless, as root:
#   --dump-dom and --screenshot=FILE --window-size=W,H work as flags;
#   --enable-logging=stderr --v=0 prints console messages as
#   "INFO:CONSOLE" lines, but console.error and console.log alike (no
#   level) and not a resource that failed to load, so console problems are
#   caught by tests/helpers/cdp.py, a small DevTools-protocol client over
#   --remote-debugging-pipe (no WebSocket, no port): it reports
#   console.error/warn/assert, uncaught exceptions and the browser's own
#   warnings and errors (net::ERR_FILE_NOT_FOUND for a missing image or
#   stylesheet, a blocked request).
#
#   browser_find                 BROWSER_BIN set, or 1 with the reason in
#                                $browser_why (say it in a skip line)
#   browser_url FILE             prints FILE's file:// URL
#   browser_dom FILE OUT         the DOM after load (--dump-dom) into OUT
#   browser_screenshot FILE PNG [W,H]   a W x H PNG (default 1280,900)
#   browser_console FILE OUT     OUT gets one line per problem; 0 when
#                                none, 1 when some, 2 when the page did not
#                                load
#   browser_load FILE DIR [W,H]  all three in one browser (cdp.py):
#                                DIR/dom.html, DIR/shot.png, DIR/console.txt;
#                                status as browser_console
#   png_info PNG [RRGGBB...]     prints "WIDTH HEIGHT DISTINCT_COLOURS" and,
#                                for each colour given, how many pixels are
#                                within 12 of it per channel (pure python3)

BROWSER_TIMEOUT=${BROWSER_TIMEOUT:-120}

browser_find() {
	browser_why=
	if [ -n "${BROWSER_BIN:-}" ] && command -v "$BROWSER_BIN" >/dev/null 2>&1; then
		return 0
	fi
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then
			BROWSER_BIN=$(command -v "$b")
			export BROWSER_BIN
			return 0
		fi
	done
	browser_why="chromium is not installed (tests/helpers/install-deps.sh test installs it)"
	return 1
}

browser_url() {
	python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).resolve().as_uri())' "$1"
}

# browser_run ARGS...: Chromium with the options every flag-driven run
# shares and ARGS, under timeout, with a fresh
# profile folder (removed after).
browser_run() {
	browser_profile=$(mktemp -d)
	set -- --headless --disable-gpu --no-first-run --no-default-browser-check \
		--disable-extensions --disable-background-networking --disable-sync \
		--hide-scrollbars --user-data-dir="$browser_profile" "$@"
	[ "$(id -u)" -eq 0 ] && set -- --no-sandbox "$@"
	timeout "$BROWSER_TIMEOUT" "$BROWSER_BIN" "$@"
	browser_rc=$?
	rm -rf "$browser_profile"
	return $browser_rc
}

browser_dom() {
	browser_run --dump-dom "$(browser_url "$1")" >"$2" 2>"$2.stderr"
}

browser_screenshot() {
	browser_run --window-size="${3:-1280,900}" --screenshot="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")" \
		"$(browser_url "$1")" >"$2.stderr" 2>&1
}

browser_console() {
	timeout "$BROWSER_TIMEOUT" python3 "$top/tests/helpers/cdp.py" --browser "$BROWSER_BIN" \
		--console "$2" "$(browser_url "$1")"
}

browser_load() {
	mkdir -p "$2"
	timeout "$BROWSER_TIMEOUT" python3 "$top/tests/helpers/cdp.py" --browser "$BROWSER_BIN" \
		--window-size "${3:-1280,900}" --dom "$2/dom.html" --screenshot "$2/shot.png" \
		--console "$2/console.txt" "$(browser_url "$1")"
}

png_info() {
	python3 "$top/tests/helpers/png-info.py" "$@"
}
