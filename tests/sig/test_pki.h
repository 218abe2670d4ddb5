/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_pki.h - keys and X.509 certificates made for tests, with OpenSSL:
 * the trusted signer, an unrelated one, one that claims the trusted
 * one's issuer and serial number with another key, and the certificates
 * the kernel accepts although a careful verifier would not (expired, not
 * yet valid, wrong key usage).  Used by tests/sig (unit tests), the
 * fuzzer fuzz_signature and, through make_test_pki, the shell tests.
 */
#ifndef VUBLK_TESTS_TEST_PKI_H
#define VUBLK_TESTS_TEST_PKI_H

#include <stdbool.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

/* What to make.  Days are relative to now. */
struct test_pki_spec {
	const char *name;		/* file name stem and CN suffix */
	int key_type;			/* EVP_PKEY_RSA or EVP_PKEY_EC */
	long serial;
	long not_before_days, not_after_days;
	const char *key_usage;		/* X509v3 config text, or NULL */
	const char *ext_key_usage;	/* or NULL */
	bool ca;			/* basicConstraints CA:TRUE */
	const char *issuer;		/* the name of an earlier entry that
					 * signs it; NULL: self-signed */
	const char *same_name_as;	/* take that entry's subject (and so,
					 * self-signed, its issuer) */
};

struct test_pki_entry {
	const struct test_pki_spec *spec;
	EVP_PKEY *key;
	X509 *cert;
};

/* The set every test uses, in this order (issuers first). */
enum {
	TEST_PKI_TRUSTED,	/* RSA, valid, digitalSignature */
	TEST_PKI_OTHER,		/* RSA, another key and name */
	TEST_PKI_SAME_ID,	/* RSA, trusted's issuer and serial, another
				 * key */
	TEST_PKI_EXPIRED,	/* valid -9000 .. -8000 days */
	TEST_PKI_FUTURE,	/* valid +3650 .. +7300 days */
	TEST_PKI_USAGE,		/* keyUsage keyCertSign, EKU serverAuth */
	TEST_PKI_EC,		/* valid, digitalSignature */
	TEST_PKI_CA,		/* a CA ... */
	TEST_PKI_LEAF,		/* ... and a certificate it issued */
	/* (the first three have the fixed 2048-bit RSA keys of
	 * test_pki_keys.c, the others new ECDSA P-256 keys) */
	TEST_PKI_COUNT,
};

struct test_pki {
	struct test_pki_entry e[TEST_PKI_COUNT];
};

/* The PEM keys of TRUSTED, OTHER and SAME_ID (test_pki_keys.c). */
#define TEST_PKI_RSA_KEYS 3
extern const char *const test_pki_rsa_keys[TEST_PKI_RSA_KEYS];

/* A set of entries to make: 1 << TEST_PKI_* each. */
#define TEST_PKI_ALL ((1u << TEST_PKI_COUNT) - 1)

/*
 * Make the entries of which (an issuer with what it issues); the others
 * stay NULL.  False after printing why.
 */
bool test_pki_make(struct test_pki *pki, unsigned which);
void test_pki_free(struct test_pki *pki);

/*
 * A CMS (PKCS#7) signature of data by signers[0] (and signers[1] if not
 * NULL), with CMS_BINARY and the CMS_* flags given (flags2: the second
 * signer's); content_nid other than 0 sets the signed content type;
 * carry adds a certificate.  Returns its DER length and sets *der
 * (OPENSSL_free() it), or -1 after printing OpenSSL's errors.
 */
struct test_pki_cms {
	const struct test_pki_entry *signers[2];
	const EVP_MD *md;		/* NULL: SHA-256 */
	unsigned flags, flags2;
	int content_nid;
	X509 *carry;
};

int test_pki_sign(const struct test_pki_cms *s, const void *data,
		  size_t len, unsigned char **der);

/* The DER of a certificate (OPENSSL_free() it); its length in *len. */
unsigned char *test_pki_der(X509 *cert, size_t *len);

#endif /* VUBLK_TESTS_TEST_PKI_H */
