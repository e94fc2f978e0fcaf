#include <stdarg.h>

#include "buf.h"
#include "eventlog.h"
#include "banned.h"

void event_log_say(const struct event_log *log, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	if (!log || !log->line)
		return;
	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	log->line(log->ctx, line.data);
	buf_release(&line);
}
