// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_jsonout.c - lib/jsonout: what each kind of byte becomes in each
 * mode, and that a UTF-8 report of any bytes is valid UTF-8 JSON text
 * that reads as Python's own lossy decoding of the bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

static int failures;

/* jsonout_string(s, bytes) into a string; NULL if that failed. */
static char *jsonout_text(const char *s, enum jsonout_bytes bytes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	jsonout_string(f, s, bytes);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void expect(const char *name, const char *s, enum jsonout_bytes bytes,
		   const char *want)
{
	char *got = jsonout_text(s, bytes);

	if (!got || strcmp(got, want)) {
		printf("FAIL %s (%s): got '%s', want '%s'\n", name,
		       bytes == JSONOUT_RAW ? "raw" : "utf8",
		       got ? got : "(none)", want);
		failures++;
	}
	free(got);
}

/*
 * Each byte 0x01..0xff, then every kind of sequence, as one string: the
 * UTF-8 report must be valid UTF-8 JSON text to python3's strict
 * decoders, and read as the very string Python's own lossy decoder
 * (errors="replace") makes of the bytes.  Exit status 77 (skipped)
 * without python3.
 */
static int check_with_python(void)
{
	static const char tail[] =
		"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"	/* é € 😀 */
		"\xc0\xaf\xe0\x80\x80\xed\xa0\x80\xf4\x90\x80\x80"
		"\xe2\x82z\xf0\x9f\x98z\xf1\x80\x80\x80\xe2\x82";
	char all[255 + sizeof(tail)], hex[2 * sizeof(all) + 1], cmd[4096];
	char *text;
	FILE *p;
	int status;

	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	memcpy(all + 255, tail, sizeof(tail));
	for (size_t i = 0; all[i]; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)all[i]);
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		printf("python3 not installed: the strict decoding is not checked\n");
		return 77;
	}
	text = jsonout_text(all, JSONOUT_UTF8);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys; "
		 "s = json.loads(sys.stdin.buffer.read().decode(\"utf-8\", \"strict\")); "
		 "want = bytes.fromhex(sys.argv[1]).decode(\"utf-8\", \"replace\"); "
		 "assert s == want, (s, want)' %s", hex);
	p = text ? popen(cmd, "w") : NULL;
	if (!p) {
		printf("FAIL cannot write the report or run python3\n");
		free(text);
		return 1;
	}
	fputs(text, p);
	free(text);
	status = pclose(p);
	if (status != 0) {
		printf("FAIL python3 refused the UTF-8 report, or read it otherwise than its own decoder (status %d)\n",
		       status);
		return 1;
	}
	return 0;
}

int main(void)
{
	static const enum jsonout_bytes modes[] = { JSONOUT_UTF8, JSONOUT_RAW };
	int status;

	for (size_t m = 0; m < 2; m++) {
		expect("plain", "/dev/ublkb0", modes[m], "\"/dev/ublkb0\"");
		expect("quote and backslash", "a\"b\\c", modes[m], "\"a\\\"b\\\\c\"");
		expect("controls", "\x01\t\n\x1f", modes[m],
		       "\"\\u0001\\u0009\\u000a\\u001f\"");
		expect("empty", "", modes[m], "\"\"");
		/* Well-formed UTF-8 (2, 3 and 4 bytes) stays as it is. */
		expect("utf-8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", modes[m],
		       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	}
	/* Not UTF-8: a stray byte, an overlong '/', a surrogate, past
	 * U+10FFFF, a cut sequence at the end, one cut by ASCII. */
	expect("stray", "a\xff.img", JSONOUT_UTF8, "\"a\\ufffd.img\"");
	expect("overlong", "\xc0\xaf", JSONOUT_UTF8, "\"\\ufffd\\ufffd\"");
	expect("surrogate", "\xed\xa0\x80", JSONOUT_UTF8,
	       "\"\\ufffd\\ufffd\\ufffd\"");
	expect("past U+10FFFF", "\xf4\x90\x80\x80", JSONOUT_UTF8,
	       "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* A cut sequence is one U+FFFD (its maximal subpart). */
	expect("cut at the end", "x\xe2\x82", JSONOUT_UTF8, "\"x\\ufffd\"");
	expect("cut by ascii", "\xe2\x82z", JSONOUT_UTF8, "\"\\ufffdz\"");
	expect("cut 4 bytes", "\xf0\x9f\x98z", JSONOUT_UTF8, "\"\\ufffdz\"");
	/* Raw: the very bytes, for a file read back by vublk only. */
	expect("raw stray", "a\xff\xc0\xaf.img", JSONOUT_RAW,
	       "\"a\xff\xc0\xaf.img\"");
	if (failures)
		return 1;
	status = check_with_python();
	if (!status)
		printf("OK\n");
	return status;
}
