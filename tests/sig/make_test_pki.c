// SPDX-License-Identifier: GPL-2.0-only
/*
 * make_test_pki DIR: write the keys and certificates of test_pki.h for
 * the shell tests, as DIR/NAME.pem (certificate), DIR/NAME.der (the same
 * in DER, what `keyctl padd` takes) and DIR/NAME.key.pem (PKCS#8 key),
 * NAME being trusted, other, same-id, expired, future, usage, ec, ca,
 * leaf.
 */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/pem.h>

#include "test_pki.h"

static bool write_file(const char *dir, const char *name, const char *ext,
		       const struct test_pki_entry *e)
{
	char path[4096];
	unsigned char *der;
	size_t len;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return false;
	}
	if (ext[1] == 'd') {		/* .der */
		der = test_pki_der(e->cert, &len);
		ok = der && fwrite(der, 1, len, f) == len;
		OPENSSL_free(der);
	} else if (ext[1] == 'k') {	/* .key.pem */
		ok = PEM_write_PrivateKey(f, e->key, NULL, NULL, 0, NULL, NULL);
	} else {
		ok = PEM_write_X509(f, e->cert);
	}
	if (fclose(f) != 0 || !ok) {
		fprintf(stderr, "make_test_pki: cannot write %s\n", path);
		return false;
	}
	return true;
}

int main(int argc, char *argv[])
{
	static const char *const exts[] = { ".pem", ".der", ".key.pem" };
	struct test_pki pki;
	bool ok = true;

	if (argc != 2) {
		fprintf(stderr, "usage: make_test_pki DIR\n");
		return 2;
	}
	if (!test_pki_make(&pki, TEST_PKI_ALL))
		return 1;
	for (int i = 0; i < TEST_PKI_COUNT; i++)
		for (int j = 0; j < 3; j++)
			ok = ok && write_file(argv[1], pki.e[i].spec->name,
					      exts[j], &pki.e[i]);
	test_pki_free(&pki);
	return ok ? 0 : 1;
}
