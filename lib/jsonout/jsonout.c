// SPDX-License-Identifier: GPL-2.0-only
/*
 * jsonout.c - a C string as a JSON string (see jsonout.h).
 */
#include <stdbool.h>

#include "jsonout.h"

/*
 * The bytes at s (the first one 0x80 or more) that one decoder step
 * takes: a whole well-formed sequence (*whole set; RFC 3629, the Unicode
 * Standard's table 3-7: no overlong form, surrogate or code point past
 * U+10FFFF), else its "maximal subpart" (Unicode 3.9, U+FFFD
 * substitution), the longest start of one, at least a byte, which a
 * decoder replaces by one U+FFFD, as Python's errors="replace", Rust's
 * from_utf8_lossy and the WHATWG decoder do.  A NUL ends it too.
 */
static size_t utf8_sequence(const unsigned char *s, bool *whole)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		n = 1;		/* not a lead byte */
	/* The second byte's narrower ranges: no overlong form (E0, F0), no
	 * surrogate (ED), nothing past U+10FFFF (F4). */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n && s[i] >= lo && s[i] <= hi; i++) {
		lo = 0x80;
		hi = 0xbf;
	}
	*whole = n > 1 && i == n;
	return i;
}

void jsonout_string(FILE *f, const char *s, enum jsonout_bytes bytes)
{
	const unsigned char *p = (const unsigned char *)s;
	bool whole;
	size_t n;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80 || bytes == JSONOUT_RAW) {
			fputc(*p, f);
		} else {
			n = utf8_sequence(p, &whole);
			if (whole)
				fwrite(p, 1, n, f);
			else
				fputs("\\ufffd", f);
			p += n - 1;
		}
	}
	fputc('"', f);
}
