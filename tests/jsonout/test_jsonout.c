// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_jsonout.c - lib/jsonout: what each kind of byte becomes in each
 * mode, and that a UTF-8 report of any bytes is valid UTF-8 JSON text
 * (checked by python3's strict decoders when it is installed).
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

/* Each byte 0x01..0xff, then every kind of sequence, as one string:
 * python3 must read the UTF-8 report with its strict decoders. */
static void check_with_python(void)
{
	char all[256 + 64], *text;
	FILE *p;
	int status;

	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	strcpy(all + 255, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82");
	text = jsonout_text(all, JSONOUT_UTF8);
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		printf("python3 not installed: the strict decoding is not checked\n");
		free(text);
		return;
	}
	p = popen("python3 -c 'import json, sys; "
		  "s = json.loads(sys.stdin.buffer.read().decode(\"utf-8\", \"strict\")); "
		  "assert s[:127] == \"\".join(map(chr, range(1, 128))), s[:127]; "
		  "assert s[127:255] == \"\\ufffd\" * 128, s[127:255]; "
		  "assert s[255:] == \"\\u00e9\\u20ac\\U0001f600\" + \"\\ufffd\" * 11, s[255:]'",
		  "w");
	if (!p || !text) {
		printf("FAIL cannot run python3\n");
		failures++;
		free(text);
		return;
	}
	fputs(text, p);
	status = pclose(p);
	if (status != 0) {
		printf("FAIL python3 refused the UTF-8 report (status %d)\n",
		       status);
		failures++;
	}
	free(text);
}

int main(void)
{
	static const enum jsonout_bytes modes[] = { JSONOUT_UTF8, JSONOUT_RAW };

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
	expect("cut at the end", "x\xe2\x82", JSONOUT_UTF8,
	       "\"x\\ufffd\\ufffd\"");
	expect("cut by ascii", "\xe2\x82z", JSONOUT_UTF8, "\"\\ufffd\\ufffdz\"");
	/* Raw: the very bytes, for a file read back by vublk only. */
	expect("raw stray", "a\xff\xc0\xaf.img", JSONOUT_RAW,
	       "\"a\xff\xc0\xaf.img\"");
	check_with_python();
	if (!failures)
		printf("OK\n");
	return failures != 0;
}
