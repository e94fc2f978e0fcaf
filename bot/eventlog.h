#ifndef PERFBOT_EVENTLOG_H
#define PERFBOT_EVENTLOG_H

/*
 * The one-line-per-event log of the cron commands (queued, sent, deferred,
 * refused, kept...).  Library code does not print: it formats the line and
 * hands it to the caller's function, which decides where it goes.
 */

struct event_log {
	void (*line)(void *ctx, const char *line);	/* NULL: events are dropped */
	void *ctx;
};

void event_log_say(const struct event_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
