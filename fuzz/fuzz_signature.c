// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_signature.c - hostile builtin signatures and certificates.
 *
 * What an attacker who can write the image controls: the bytes stored
 * after the descriptor as its signature (sig_verify(), sig_check()), and,
 * for whoever is handed a bad file, what --trusted-cert reads
 * (sig_trust_add()).  The keys and certificates are tests/sig/test_pki.c's,
 * made once at start (its RSA keys are fixed, its ECDSA keys new): a
 * trusted RSA and a trusted ECDSA certificate, and an untrusted ECDSA
 * one.
 *
 * Input:
 *   0      mode, low 2 bits:
 *            0  the rest of the input is the signature
 *            1  an honest signature, then mutated (below)
 *            2  the rest of the input is a certificate file
 *            3  the trusted RSA certificate's DER, then mutated
 *          and, for mode 1, how the honest signature is made:
 *            bit 2  with signed attributes (no S/MIME capabilities)
 *            bit 3  the signer's certificate carried
 *            bit 4  signer named by key identifier
 *            bit 5  the ECDSA key signs (else RSA)
 *            bit 6  SHA-512 in the PKCS#7 (else SHA-256)
 *            bit 7  a second, untrusted signer
 *   1      the file digest's algorithm: bit 0 set = SHA-512
 *   2..    modes 1 and 3: mutations, 3 bytes each: le16 offset (modulo
 *          the length), a byte XORed in there; modes 0 and 2: the bytes
 *
 * Oracle: no crash or out-of-bounds access (ASan); every error has its
 * own message; an honest, unmutated signature verifies, and for no other
 * digest; whatever is accepted verifies with OpenSSL's own CMS_verify()
 * against the certificate sig_verify() says signed it, and is refused for
 * another digest: sig_verify() never accepts what a plain signature check
 * would not.
 */
#include <openssl/cms.h>
#include <openssl/err.h>

#include "fuzz_input.h"
#include "sig.h"
#include "test_pki.h"

#define MODE_SIGNATURE 0
#define MODE_HONEST 1
#define MODE_CERTIFICATE 2
#define MODE_CERT_MUTATED 3

static struct test_pki pki;
static struct sig_trust *trust;
/* The trusted certificates, in trust order. */
static const int trusted[] = { TEST_PKI_TRUSTED, TEST_PKI_EC };

static void setup(void)
{
	unsigned char *der;
	size_t len;

	FUZZ_CHECK(test_pki_make(&pki, 1u << TEST_PKI_TRUSTED |
					1u << TEST_PKI_EC |
					1u << TEST_PKI_EXPIRED));
	FUZZ_CHECK(sig_trust_new(&trust) == 0);
	for (size_t i = 0; i < sizeof(trusted) / sizeof(trusted[0]); i++) {
		der = test_pki_der(pki.e[trusted[i]].cert, &len);
		FUZZ_CHECK(der && sig_trust_add(trust, der, len) == (int)i);
		OPENSSL_free(der);
	}
}

static void check_error_named(int err)
{
	FUZZ_CHECK(err < 0);
	FUZZ_CHECK(strcmp(sig_strerror(err), "unknown error") != 0);
}

/*
 * After a refusal by CMS_verify(): whether it was for the SignedData's
 * list of digest algorithms, which CMS_verify() hashes the content with:
 * one it does not know (CMS_R_UNKNOWN_DIGEST_ALGORITHM; the signer's own
 * was checked by sig_verify()), or none that is the signer's
 * (CMS_R_NO_MATCHING_DIGEST).  The kernel's pkcs7.asn1 parses that list
 * and never uses it.  Otherwise the errors are printed, for the report.
 */
static bool refused_for_digest_list(void)
{
	char text[1024] = "";
	unsigned long e;
	bool list = false;
	size_t n;

	while ((e = ERR_get_error()) != 0) {
		list |= ERR_GET_REASON(e) == CMS_R_NO_MATCHING_DIGEST ||
			ERR_GET_REASON(e) == CMS_R_UNKNOWN_DIGEST_ALGORITHM;
		n = strlen(text);
		ERR_error_string_n(e, text + n, sizeof(text) - n);
	}
	if (!list)
		fprintf(stderr, "CMS_verify() refused it: %s\n", text);
	return list;
}

/* OpenSSL's own check: signed by cert over data, nothing else asked. */
static bool openssl_verifies(const uint8_t *sig, size_t len, X509 *cert,
			     const uint8_t *data, size_t data_len)
{
	const unsigned char *p = sig;
	CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, (long)len);
	STACK_OF(X509) *certs = sk_X509_new_null();
	/* Not a bare memory BIO: CMS_verify() of OpenSSL 3.0 copies one into
	 * a BIO of its own that it leaks when CMS_dataInit() fails. */
	BIO *in = BIO_push(BIO_new(BIO_f_buffer()),
			   BIO_new_mem_buf(data, (int)data_len));
	bool ok;

	ERR_clear_error();
	ok = cms && certs && in && sk_X509_push(certs, cert) &&
	     (CMS_verify(cms, certs, NULL, in, NULL,
			 CMS_BINARY | CMS_NOINTERN |
			 CMS_NO_SIGNER_CERT_VERIFY) == 1 ||
	      refused_for_digest_list());
	CMS_ContentInfo_free(cms);
	sk_X509_free(certs);
	BIO_free_all(in);
	ERR_clear_error();
	return ok;
}

/* sig_verify() on sig; the oracle on what it accepts. */
static int verify(const uint8_t *sig, size_t len, unsigned alg,
		  const uint8_t *digest)
{
	uint8_t other[MERKLE_MAX_DIGEST_SIZE], formatted[12 + 64];
	struct sig_result res;
	int err = sig_verify(trust, alg, digest, sig, len, &res), flen;
	unsigned nsigners = 0;
	const unsigned char *p = sig;
	CMS_ContentInfo *cms;

	if (err) {
		check_error_named(err);
		FUZZ_CHECK(res.signer == -1);
		return err;
	}
	FUZZ_CHECK(res.signer >= 0 && (size_t)res.signer <
				      sig_trust_count(trust));
	/* CMS_verify() wants every signer's certificate: ask it only of
	 * single-signer messages. */
	cms = d2i_CMS_ContentInfo(NULL, &p, (long)len);
	FUZZ_CHECK(cms != NULL);
	nsigners = (unsigned)sk_CMS_SignerInfo_num(CMS_get0_SignerInfos(cms));
	CMS_ContentInfo_free(cms);
	flen = merkle_formatted_digest(alg, digest, formatted);
	if (nsigners == 1)
		FUZZ_CHECK(openssl_verifies(sig, len,
					    pki.e[trusted[res.signer]].cert,
					    formatted, (size_t)flen));
	memcpy(other, digest, sizeof(other));
	other[0] ^= 1;
	FUZZ_CHECK(sig_verify(trust, alg, other, sig, len, &res) != 0);
	return 0;
}

/* Apply the input's mutations to buf (len bytes). */
static void mutate(struct fuzz_input *in, uint8_t *buf, size_t len)
{
	while (len && fuzz_remaining(in) >= 3) {
		size_t off = (size_t)fuzz_take_le(in, 2) % len;

		buf[off] ^= (uint8_t)fuzz_take_le(in, 1);
	}
}

/* Mode 1: an honest signature as the flags say, mutated. */
static void fuzz_honest(struct fuzz_input *in, unsigned flags, unsigned alg,
			const uint8_t *digest)
{
	struct test_pki_cms s = {
		.signers = { &pki.e[flags & 0x20 ? TEST_PKI_EC :
						   TEST_PKI_TRUSTED],
			     flags & 0x80 ? &pki.e[TEST_PKI_EXPIRED] : NULL },
		.md = flags & 0x40 ? EVP_sha512() : EVP_sha256(),
		.flags = CMS_DETACHED |
			 (flags & 0x04 ? CMS_NOSMIMECAP : CMS_NOATTR) |
			 (flags & 0x08 ? 0 : CMS_NOCERTS) |
			 (flags & 0x10 ? CMS_USE_KEYID : 0),
		.flags2 = (flags & 0x04 ? CMS_NOSMIMECAP : CMS_NOATTR) |
			  CMS_NOCERTS,
	};
	uint8_t formatted[12 + 64];
	int flen = merkle_formatted_digest(alg, digest, formatted);
	unsigned char *der;
	int len = test_pki_sign(&s, formatted, (size_t)flen, &der);
	bool mutated = fuzz_remaining(in) >= 3;
	int err;

	FUZZ_CHECK(len > 0);
	mutate(in, der, (size_t)len);
	err = verify(der, (size_t)len, alg, digest);
	FUZZ_CHECK(mutated || err == 0);	/* an honest one verifies */
	OPENSSL_free(der);
}

/* Modes 2 and 3: a certificate file, as --trusted-cert reads it. */
static void fuzz_certificate(const uint8_t *buf, size_t len)
{
	struct sig_trust *t;
	const struct sig_cert_info *info;
	int i;

	FUZZ_CHECK(sig_trust_new(&t) == 0);
	i = sig_trust_add(t, buf, len);
	if (i < 0) {
		check_error_named(i);
		FUZZ_CHECK(sig_trust_count(t) == 0);
	} else {
		info = sig_trust_info(t, (size_t)i);
		FUZZ_CHECK(memchr(info->subject, 0, sizeof(info->subject)));
		FUZZ_CHECK(memchr(info->not_after, 0, sizeof(info->not_after)));
	}
	sig_trust_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct fuzz_input in;
	unsigned flags, alg;
	unsigned char *der;
	size_t len;

	if (!ready) {
		setup();
		ready = true;
	}
	for (size_t i = 0; i < sizeof(digest); i++)
		digest[i] = (uint8_t)(i * 13 + 5);
	fuzz_input_init(&in, data, size);
	flags = (unsigned)fuzz_take_le(&in, 1);
	alg = fuzz_take_le(&in, 1) & 1 ? MERKLE_HASH_SHA512 :
					 MERKLE_HASH_SHA256;
	switch (flags & 3) {
	case MODE_SIGNATURE:
		verify(fuzz_rest(&in), fuzz_remaining(&in), alg, digest);
		break;
	case MODE_HONEST:
		fuzz_honest(&in, flags, alg, digest);
		break;
	case MODE_CERTIFICATE:
		fuzz_certificate(fuzz_rest(&in), fuzz_remaining(&in));
		break;
	default:	/* MODE_CERT_MUTATED */
		der = test_pki_der(pki.e[TEST_PKI_TRUSTED].cert, &len);
		FUZZ_CHECK(der != NULL);
		mutate(&in, der, len);
		fuzz_certificate(der, len);
		OPENSSL_free(der);
	}
	return 0;
}
