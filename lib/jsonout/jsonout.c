// SPDX-License-Identifier: GPL-2.0-only
/*
 * jsonout.c - a C string as a JSON string (see jsonout.h).
 */
#include "jsonout.h"

/*
 * The length of the well-formed UTF-8 sequence at s that starts with a
 * byte of 0x80 or more (RFC 3629: no overlong form, surrogate or code
 * point past U+10FFFF), 0 if there is none.  A NUL ends it too.
 */
static size_t utf8_sequence_len(const unsigned char *s)
{
	unsigned cp, min, n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	cp = s[0] & (0x7f >> n);	/* the lead byte's payload bits */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void jsonout_string(FILE *f, const char *s, enum jsonout_bytes bytes)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80 || bytes == JSONOUT_RAW) {
			fputc(*p, f);
		} else if ((n = utf8_sequence_len(p))) {
			fwrite(p, 1, n, f);
			p += n - 1;
		} else {
			fputs("\\ufffd", f);
		}
	}
	fputc('"', f);
}
