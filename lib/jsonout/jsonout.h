/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jsonout.h - a C string as a JSON string, for the commands' --json
 * reports and the daemon's state files.
 *
 * JSON text is UTF-8 (RFC 8259, section 8.1), but a file name is any
 * bytes but NUL and '/'.  A report must stay valid JSON whatever the
 * names, so bytes that are not UTF-8 become U+FFFD, one for each
 * "maximal subpart" as the Unicode Standard recommends: what Python's
 * errors="replace" and Rust's from_utf8_lossy read from the same bytes.
 * A file that only vublk reads back, and that must give back the very
 * bytes (a state file's backing path), keeps them as they are.
 */
#ifndef JSONOUT_H
#define JSONOUT_H

#include <stdio.h>

enum jsonout_bytes {
	JSONOUT_UTF8,	/* bytes that are not UTF-8: U+FFFD */
	JSONOUT_RAW,	/* every byte as it is (0x20 and up) */
};

/*
 * s between quotes onto f: '"' and '\\' escaped with a backslash, control
 * characters (below 0x20) as \u00XX, the rest as bytes says.
 */
void jsonout_string(FILE *f, const char *s, enum jsonout_bytes bytes);

#endif /* JSONOUT_H */
