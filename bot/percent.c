#include "percent.h"
#include "banned.h"

int percent_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int percent_decode(const char *s, size_t n, int strict, struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int hi, lo;
		char c = s[i];

		if (c == '%') {
			if (i + 2 < n && (hi = percent_hex((unsigned char)s[i + 1])) >= 0 &&
			    (lo = percent_hex((unsigned char)s[i + 2])) >= 0) {
				c = (char)(hi << 4 | lo);
				i += 2;
			} else if (strict) {
				return -1;
			}
		}
		if (buf_addc(out, c) < 0)
			return -1;
	}
	return 0;
}
