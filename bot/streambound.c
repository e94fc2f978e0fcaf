#include <errno.h>
#include <stdlib.h>

#include "etpanlib.h"
#include "banned.h"

struct bound {
	mailstream_low *inner;
	size_t max;
	size_t read;		/* since the last write */
	struct streambound *sb;
};

static ssize_t bound_read(mailstream_low *low, void *buf, size_t n)
{
	struct bound *b = low->data;
	ssize_t r;

	if (b->read >= b->max) {
		b->sb->tripped = 1;
		errno = EMSGSIZE;
		return -1;
	}
	if (n > b->max - b->read)
		n = b->max - b->read;
	r = mailstream_low_read(b->inner, buf, n);
	if (r > 0)
		b->read += (size_t)r;
	else
		b->sb->closed = 1;	/* end of file, reset, timeout */
	return r;
}

static ssize_t bound_write(mailstream_low *low, const void *buf, size_t n)
{
	struct bound *b = low->data;
	ssize_t r;

	b->read = 0;
	r = mailstream_low_write(b->inner, buf, n);
	if (r < 0)
		b->sb->closed = 1;
	return r;
}

static int bound_close(mailstream_low *low)
{
	return mailstream_low_close(((struct bound *)low->data)->inner);
}

static int bound_get_fd(mailstream_low *low)
{
	return mailstream_low_get_fd(((struct bound *)low->data)->inner);
}

/* When STARTTLS frees the layer it replaces, the connection stays open:
 * libetpan's TCP layer does not close it when freed. */
static void bound_free(mailstream_low *low)
{
	struct bound *b = low->data;

	mailstream_low_free(b->inner);
	free(b);
	free(low);
}

static void bound_cancel(mailstream_low *low)
{
	mailstream_low_cancel(((struct bound *)low->data)->inner);
}

static struct mailstream_cancel *bound_get_cancel(mailstream_low *low)
{
	return mailstream_low_get_cancel(((struct bound *)low->data)->inner);
}

static carray *bound_get_certificate_chain(mailstream_low *low)
{
	return mailstream_low_get_certificate_chain(((struct bound *)low->data)->inner);
}

static mailstream_low_driver bound_driver = {
	.mailstream_read = bound_read,
	.mailstream_write = bound_write,
	.mailstream_close = bound_close,
	.mailstream_get_fd = bound_get_fd,
	.mailstream_free = bound_free,
	.mailstream_cancel = bound_cancel,
	.mailstream_get_cancel = bound_get_cancel,
	.mailstream_get_certificate_chain = bound_get_certificate_chain,
};

int streambound_wrap(mailstream *stream, size_t max, struct streambound *sb)
{
	struct bound *b = malloc(sizeof(*b));
	mailstream_low *low;

	if (!b)
		return -1;
	b->inner = mailstream_get_low(stream);
	b->max = max;
	b->read = 0;
	b->sb = sb;
	if (!(low = mailstream_low_new(b, &bound_driver))) {
		free(b);
		return -1;
	}
	mailstream_set_low(stream, low);
	return 0;
}
