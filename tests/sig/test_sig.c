// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sig.c - lib/sig: signatures made with OpenSSL's CMS API in every
 * form the kernel's PKCS#7 code treats differently (attributes or none,
 * carried certificates, several signers, key identifiers, other content),
 * each checked for the answer the kernel gives (sig.h, errors.c); the
 * trusted certificates; sig_check()'s policy; sig_sign()'s errors.
 * Byte-identity with `fsverity sign` and the kernel's own verdicts are
 * checked by tests/tool/sign.sh and the VM test verity/07-signatures.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "sig.h"
#include "test_pki.h"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			failures++;					\
		}							\
	} while (0)

#define CHECK_ERR(got, want, what)					\
	do {								\
		int got_ = (got), want_ = (want);			\
		CHECK(got_ == want_, "%s: %d (%s), want %d (%s)", what,	\
		      got_, got_ ? sig_strerror(got_) : "ok", want_,	\
		      want_ ? sig_strerror(want_) : "ok");		\
	} while (0)

static struct test_pki pki;
static struct sig_trust *trust;	/* trusted, expired, ec, ca */
static char dir[] = "/tmp/vublk-test-sig-XXXXXX";
static uint8_t digest_a[64], digest_b[64];

#define E(i) (&pki.e[TEST_PKI_##i])

/* A signature of formatted digest (alg, digest; default: SHA-256,
 * digest_a) made as cms says. */
struct cms_spec {
	struct test_pki_cms cms;
	const uint8_t *digest;
	unsigned alg;
};

static unsigned char *make_cms(const struct cms_spec *s, size_t *len)
{
	uint8_t formatted[12 + 64];
	int flen = merkle_formatted_digest(s->alg ? s->alg : MERKLE_HASH_SHA256,
					   s->digest ? s->digest : digest_a,
					   formatted);
	unsigned char *der;
	int n = test_pki_sign(&s->cms, formatted, (size_t)flen, &der);

	if (n < 0) {
		fprintf(stderr, "make_cms failed\n");
		exit(1);
	}
	*len = (size_t)n;
	return der;
}

/* Verify a signature made by s against digest_a; the result code. */
static int verify_cms(const struct cms_spec *s, struct sig_result *res)
{
	size_t len;
	unsigned char *der = make_cms(s, &len);
	int err = sig_verify(trust, MERKLE_HASH_SHA256, digest_a, der, len,
			     res);

	OPENSSL_free(der);
	return err;
}

/* fsverity sign's form: detached, no attributes, no certificates. */
#define FSVERITY_FORM (CMS_DETACHED | CMS_NOATTR | CMS_NOCERTS)

static void write_pem(const char *name, const struct test_pki_entry *e,
		      bool key, bool cert, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || (key && !PEM_write_PrivateKey(f, e->key, NULL, NULL, 0,
						NULL, NULL)) ||
	    (cert && !PEM_write_X509(f, e->cert)) || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

/* sig_sign() (the `fsverity sign` form) verifies, by RSA and EC keys,
 * for SHA-256 and SHA-512 file digests. */
static void test_sign_and_verify(void)
{
	static const int who[] = { TEST_PKI_TRUSTED, TEST_PKI_EC };
	static const unsigned algs[] = { MERKLE_HASH_SHA256,
					 MERKLE_HASH_SHA512 };
	char key[4096], cert[4096];
	struct sig_result res;
	uint8_t *sig;
	size_t len;
	int err;

	for (int i = 0; i < 2; i++) {
		write_pem("k.pem", &pki.e[who[i]], true, false, key,
			  sizeof(key));
		write_pem("c.pem", &pki.e[who[i]], false, true, cert,
			  sizeof(cert));
		for (int j = 0; j < 2; j++) {
			err = sig_sign(algs[j], digest_a, key, cert, &sig, &len);
			CHECK_ERR(err, 0, "sig_sign");
			if (err)
				continue;
			CHECK_ERR(sig_verify(trust, algs[j], digest_a, sig, len,
					     &res), 0, "own signature");
			CHECK(res.signer == (i ? 2 : 0), "signer %d",
			      res.signer);
			CHECK_ERR(sig_verify(trust, algs[j], digest_b, sig, len,
					     &res), SIG_E_BAD_SIGNATURE,
				  "another digest");
			CHECK_ERR(sig_verify(trust, 3 - algs[j], digest_a, sig,
					     len, &res), SIG_E_BAD_SIGNATURE,
				  "the other algorithm");
			free(sig);
		}
	}
}

/* Every prefix of a good signature is refused without a crash; bytes
 * after it are ignored, as the kernel's ASN.1 decoder ignores them. */
static void test_malformed(void)
{
	struct cms_spec s = { .cms.signers = { E(TRUSTED) },
			      .cms.flags = FSVERITY_FORM };
	struct sig_result res;
	size_t len, bad = 0;
	unsigned char *der = make_cms(&s, &len);
	unsigned char *longer = malloc(len + 3);
	int err;

	for (size_t cut = 0; cut < len; cut++) {
		err = sig_verify(trust, MERKLE_HASH_SHA256, digest_a, der, cut,
				 &res);
		bad += err != SIG_E_MALFORMED;
	}
	CHECK(bad == 0, "%zu of %zu prefixes not refused as malformed", bad,
	      len);
	memcpy(longer, der, len);
	memcpy(longer + len, "\0\xff\x30", 3);
	CHECK_ERR(sig_verify(trust, MERKLE_HASH_SHA256, digest_a, longer,
			     len + 3, &res), 0, "trailing bytes");
	CHECK_ERR(sig_verify(trust, MERKLE_HASH_SHA256, digest_a, "garbage",
			     7, &res), SIG_E_MALFORMED, "garbage");
	free(longer);
	OPENSSL_free(der);
}

static void test_trust(void)
{
	struct sig_result res;
	struct cms_spec s = { .cms.flags = FSVERITY_FORM };

	s.cms.signers[0] = E(OTHER);
	CHECK_ERR(verify_cms(&s, &res), SIG_E_UNTRUSTED, "other key");
	CHECK(strstr(res.detail, "vublk test other") != NULL, "detail '%s'",
	      res.detail);
	/* Its issuer and serial are the trusted certificate's: found, and
	 * its key refuses (EKEYREJECTED, not ENOKEY). */
	s.cms.signers[0] = E(SAME_ID);
	CHECK_ERR(verify_cms(&s, &res), SIG_E_BAD_SIGNATURE, "same id");
	/* Untrusted signers are passed over; a failing trusted one refuses
	 * the whole signature (pkcs7_validate_trust()). */
	s.cms.signers[0] = E(OTHER);
	s.cms.signers[1] = E(TRUSTED);
	s.cms.flags2 = CMS_NOATTR | CMS_NOCERTS;
	CHECK_ERR(verify_cms(&s, &res), 0, "other + trusted");
	CHECK(res.signer == 0, "signer %d", res.signer);
	s.cms.signers[0] = E(SAME_ID);
	CHECK_ERR(verify_cms(&s, &res), SIG_E_BAD_SIGNATURE,
		  "same id + trusted");
	/* Named by subject key identifier (CMS, SignerInfo version 3). */
	s = (struct cms_spec){ .cms.signers = { E(TRUSTED) },
			       .cms.flags = FSVERITY_FORM | CMS_USE_KEYID };
	CHECK_ERR(verify_cms(&s, &res), 0, "key identifier");
	/* No chain: a leaf carried in the signature, issued by a trusted CA,
	 * is not trusted (the kernel would; docs/SECURITY.md). */
	s = (struct cms_spec){ .cms.signers = { E(LEAF) },
			       .cms.flags = CMS_DETACHED | CMS_NOATTR };
	CHECK_ERR(verify_cms(&s, &res), SIG_E_UNTRUSTED, "leaf of a trusted CA");
	/* Expired and not-yet-valid certificates verify, as in the kernel. */
	s = (struct cms_spec){ .cms.signers = { E(EXPIRED) },
			       .cms.flags = FSVERITY_FORM };
	CHECK_ERR(verify_cms(&s, &res), 0, "expired");
	CHECK(res.signer == 1, "signer %d", res.signer);
	CHECK_ERR(sig_verify(NULL, MERKLE_HASH_SHA256, digest_a, "", 0, &res),
		  SIG_E_MALFORMED, "no trust, nothing to parse");
}

static void test_forms(void)
{
	struct cms_spec s = { .cms.signers = { E(TRUSTED) } };
	struct sig_result res;

	s.cms.flags = CMS_NOATTR | CMS_NOCERTS;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_NOT_DETACHED, "not detached");
	s.cms.flags = FSVERITY_FORM;
	s.cms.content_nid = NID_id_smime_ct_TSTInfo;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_CONTENT_TYPE, "content type");
	s.cms.content_nid = 0;
	s.cms.md = EVP_md5();
	CHECK_ERR(verify_cms(&s, &res), SIG_E_ALGORITHM, "MD5");
	s.cms.md = EVP_sha1();
	CHECK_ERR(verify_cms(&s, &res), 0, "SHA-1 (the kernel takes it)");
	s.cms.md = EVP_sha512();
	CHECK_ERR(verify_cms(&s, &res), 0, "SHA-512 over a SHA-256 digest");
	/* The signer's certificate carried: verified with it too. */
	s.cms.md = NULL;
	s.cms.flags = CMS_DETACHED | CMS_NOATTR;
	CHECK_ERR(verify_cms(&s, &res), 0, "certificate carried");
	/* A carried certificate with the signer's issuer and serial but
	 * another key: the kernel verifies with it first and refuses. */
	s.cms.flags = FSVERITY_FORM;
	s.cms.carry = E(SAME_ID)->cert;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_CARRIED_CERT,
		  "wrong certificate carried");
}

/* Signed attributes, as pkcs7_parser.c and pkcs7_verify.c take them. */
static void test_attributes(void)
{
	struct cms_spec s = { .cms.signers = { E(TRUSTED) },
			      .cms.flags = CMS_DETACHED | CMS_NOCERTS };
	struct sig_result res;

	/* OpenSSL's default adds S/MIME capabilities: EKEYREJECTED. */
	CHECK_ERR(verify_cms(&s, &res), SIG_E_ATTRIBUTES, "S/MIME caps");
	s.cms.flags |= CMS_NOSMIMECAP;
	CHECK_ERR(verify_cms(&s, &res), 0, "contentType, signingTime, digest");
	s.digest = digest_b;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_MESSAGE_DIGEST,
		  "messageDigest of another digest");
	s.digest = NULL;
	/* signingTime is checked against a carried certificate only. */
	s.cms.signers[0] = E(EXPIRED);
	CHECK_ERR(verify_cms(&s, &res), 0, "expired, not carried");
	s.cms.flags &= ~CMS_NOCERTS;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_SIGNING_TIME, "expired, carried");
	s.cms.signers[0] = E(TRUSTED);
	CHECK_ERR(verify_cms(&s, &res), 0, "valid, carried");
	/* All signers with attributes, or none (pkcs7_check_authattrs()). */
	s.cms.signers[1] = E(EXPIRED);
	s.cms.flags2 = CMS_NOATTR;
	CHECK_ERR(verify_cms(&s, &res), SIG_E_ATTRIBUTES, "inconsistent");
}

static void test_certificates(void)
{
	static const char two[] = "-----BEGIN CERTIFICATE-----\n";
	struct sig_trust *t;
	size_t len;
	unsigned char *der = test_pki_der(E(OTHER)->cert, &len);
	BIO *pem = BIO_new(BIO_s_mem());
	char *text;
	long n;

	CHECK(sig_trust_new(&t) == 0, "new");
	PEM_write_bio_X509(pem, E(OTHER)->cert);
	n = BIO_get_mem_data(pem, &text);
	CHECK_ERR(sig_trust_add(t, text, (size_t)n), 0, "PEM");
	CHECK_ERR(sig_trust_add(t, der, len), 1, "DER");
	CHECK_ERR(sig_trust_add(t, der, len - 1), SIG_E_NOT_CERT, "DER cut");
	CHECK_ERR(sig_trust_add(t, two, sizeof(two) - 1), SIG_E_NOT_CERT,
		  "a PEM header alone");
	CHECK_ERR(sig_trust_add(t, "not a certificate", 17), SIG_E_NOT_CERT,
		  "text");
	CHECK_ERR(sig_trust_add(t, "", 0), SIG_E_NOT_CERT, "empty");
	PEM_write_bio_X509(pem, E(TRUSTED)->cert);
	n = BIO_get_mem_data(pem, &text);
	CHECK_ERR(sig_trust_add(t, text, (size_t)n), SIG_E_CERT_EXTRA,
		  "two certificates");
	PEM_write_bio_PrivateKey(pem, E(OTHER)->key, NULL, NULL, 0, NULL,
				 NULL);
	CHECK(sig_trust_count(t) == 2, "count %zu", sig_trust_count(t));
	CHECK(strcmp(sig_trust_info(t, 0)->subject, "CN=vublk test other") == 0,
	      "subject '%s'", sig_trust_info(t, 0)->subject);
	CHECK(sig_trust_info(t, 0)->flags == 0, "flags %x",
	      sig_trust_info(t, 0)->flags);
	CHECK_ERR(sig_trust_add_file(t, "/nonexistent"), -ENOENT, "missing");
	CHECK_ERR(sig_trust_add_file(t, "/"), -EISDIR, "directory");
	BIO_free(pem);
	OPENSSL_free(der);
	sig_trust_free(t);
}

/* What the kernel ignores is reported for a warning. */
static void test_certificate_flags(void)
{
	static const struct { int e; unsigned flags; } cases[] = {
		{ TEST_PKI_TRUSTED, 0 },
		{ TEST_PKI_EXPIRED, SIG_CERT_EXPIRED },
		{ TEST_PKI_FUTURE, SIG_CERT_NOT_YET_VALID },
		{ TEST_PKI_USAGE, SIG_CERT_USAGE },
		{ TEST_PKI_CA, SIG_CERT_USAGE },
	};
	struct sig_trust *t;
	unsigned char *der;
	size_t len;
	int i;

	CHECK(sig_trust_new(&t) == 0, "new");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		der = test_pki_der(pki.e[cases[c].e].cert, &len);
		i = sig_trust_add(t, der, len);
		CHECK(i >= 0 && sig_trust_info(t, (size_t)i)->flags ==
				cases[c].flags,
		      "%s: flags %x, want %x", pki.e[cases[c].e].spec->name,
		      i >= 0 ? sig_trust_info(t, (size_t)i)->flags : 0,
		      cases[c].flags);
		OPENSSL_free(der);
	}
	sig_trust_free(t);
}

/* sig_check(): which signature, and what when there is none. */
static void test_policy(void)
{
	struct cms_spec s = { .cms.signers = { E(TRUSTED) },
			      .cms.flags = FSVERITY_FORM };
	struct sig_policy none = { 0 }, p;
	struct sig_result res;
	size_t len;
	unsigned char *sig = make_cms(&s, &len);

	p = (struct sig_policy){ .trust = trust };
	CHECK_ERR(sig_check(&none, 1, digest_a, NULL, 0, &res),
		  SIG_STATUS_UNSIGNED, "nothing asked, unsigned");
	CHECK_ERR(sig_check(&none, 1, digest_a, sig, len, &res),
		  SIG_STATUS_UNCHECKED, "embedded, no certificate");
	CHECK_ERR(sig_check(&p, 1, digest_a, sig, len, &res),
		  SIG_STATUS_VERIFIED, "embedded, certificate");
	CHECK_ERR(sig_check(&p, 1, digest_a, NULL, 0, &res),
		  SIG_STATUS_UNSIGNED, "certificate, unsigned");
	p.require = true;
	CHECK_ERR(sig_check(&p, 1, digest_a, NULL, 0, &res), SIG_E_REQUIRED,
		  "required, unsigned");
	none.require = true;
	CHECK_ERR(sig_check(&none, 1, digest_a, sig, len, &res),
		  SIG_E_NO_TRUST, "required, no certificate");
	none = (struct sig_policy){ .given = sig, .given_len = len };
	CHECK_ERR(sig_check(&none, 1, digest_a, NULL, 0, &res),
		  SIG_E_NO_TRUST, "given, no certificate");
	/* A given signature is checked instead of the embedded one. */
	p = (struct sig_policy){ .trust = trust, .given = (uint8_t *)"x",
				 .given_len = 1 };
	CHECK_ERR(sig_check(&p, 1, digest_a, sig, len, &res), SIG_E_MALFORMED,
		  "bad given, good embedded");
	p.given = sig;
	p.given_len = len;
	CHECK_ERR(sig_check(&p, 1, digest_a, (const uint8_t *)"x", 1, &res),
		  SIG_STATUS_VERIFIED, "good given, bad embedded");
	OPENSSL_free(sig);
}

static void test_sign_errors(void)
{
	char key[4096], cert[4096], both[4096], other[4096];
	uint8_t *sig;
	size_t len;

	write_pem("key.pem", E(TRUSTED), true, false, key, sizeof(key));
	write_pem("cert.pem", E(TRUSTED), false, true, cert, sizeof(cert));
	write_pem("both.pem", E(TRUSTED), true, true, both, sizeof(both));
	write_pem("other.pem", E(OTHER), false, true, other, sizeof(other));
	CHECK_ERR(sig_sign(1, digest_a, "/nonexistent", cert, &sig, &len),
		  -ENOENT, "no key file");
	CHECK_ERR(sig_sign(1, digest_a, cert, cert, &sig, &len), SIG_E_NOT_KEY,
		  "a certificate as key");
	CHECK_ERR(sig_sign(1, digest_a, key, key, &sig, &len), SIG_E_NOT_CERT,
		  "a key as certificate");
	CHECK_ERR(sig_sign(1, digest_a, key, other, &sig, &len),
		  SIG_E_KEY_MISMATCH, "another certificate");
	CHECK_ERR(sig_sign(9, digest_a, key, cert, &sig, &len),
		  MERKLE_E_BAD_ALG, "unknown algorithm");
	/* fsverity sign: without --cert, the key file holds both. */
	CHECK_ERR(sig_sign(1, digest_a, both, NULL, &sig, &len), 0,
		  "key and certificate in one file");
	if (len)
		free(sig);
}

static void test_read_file(void)
{
	char path[4096];
	uint8_t *buf;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/big.sig", dir);
	for (size_t size = SIG_MAX_SIZE; size <= SIG_MAX_SIZE + 1; size++) {
		f = fopen(path, "w");
		CHECK(f && ftruncate(fileno(f), (off_t)size) == 0 &&
		      fclose(f) == 0, "write %s", path);
		CHECK_ERR(sig_read_file(path, &buf, &len),
			  size > SIG_MAX_SIZE ? SIG_E_TOO_LARGE : 0, "size");
		if (size <= SIG_MAX_SIZE) {
			CHECK(len == size, "len %zu", len);
			free(buf);
		}
	}
	unlink(path);
}

static bool setup(void)
{
	static const int trusted[] = { TEST_PKI_TRUSTED, TEST_PKI_EXPIRED,
				       TEST_PKI_EC, TEST_PKI_CA };
	unsigned char *der;
	size_t len;

	for (int i = 0; i < 64; i++) {
		digest_a[i] = (uint8_t)(i * 7 + 1);
		digest_b[i] = (uint8_t)(i * 7 + 2);
	}
	if (!mkdtemp(dir) || !test_pki_make(&pki, TEST_PKI_ALL) ||
	    sig_trust_new(&trust))
		return false;
	for (size_t i = 0; i < sizeof(trusted) / sizeof(trusted[0]); i++) {
		der = test_pki_der(pki.e[trusted[i]].cert, &len);
		if (sig_trust_add(trust, der, len) != (int)i)
			return false;
		OPENSSL_free(der);
	}
	return true;
}

int main(void)
{
	char cmd[4200];

	if (!setup()) {
		fprintf(stderr, "test_sig: set-up failed\n");
		return 1;
	}
	test_sign_and_verify();
	test_malformed();
	test_trust();
	test_forms();
	test_attributes();
	test_certificates();
	test_certificate_flags();
	test_policy();
	test_sign_errors();
	test_read_file();
	sig_trust_free(trust);
	test_pki_free(&pki);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_sig: could not remove %s\n", dir);
	if (failures)
		fprintf(stderr, "test_sig: %d checks failed\n", failures);
	return failures != 0;
}
