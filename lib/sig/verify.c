// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify.c - a builtin signature checked as fs/verity/signature.c:
 * fsverity_verify_signature() has the kernel check it:
 * verify_pkcs7_signature(formatted digest, signature, .fs-verity keyring,
 * VERIFYING_UNSPECIFIED_SIGNATURE) in certs/system_keyring.c, that is:
 *
 *  1. pkcs7_parse_message() (parse.c);
 *  2. pkcs7_verify() (crypto/asymmetric_keys/pkcs7_verify.c): for each
 *     signer, pkcs7_digest() hashes the formatted digest and, with signed
 *     attributes, compares messageDigest; if the signature carries the
 *     signer's certificate (pkcs7_find_key(): by issuer and serial
 *     number), the signingTime attribute, if any, must fall within that
 *     certificate's validity, the only date the kernel ever checks, and
 *     its key must verify the signature;
 *  3. pkcs7_validate_trust() (pkcs7_trust.c): a signer that is one of the
 *     trusted certificates (pkcs7_validate_trust_one()'s "direct signer",
 *     matched by issuer and serial number or subject key identifier) must
 *     verify with its key, or the whole signature is refused
 *     (EKEYREJECTED); signers that are none are passed over (ENOKEY); at
 *     least one must be trusted.
 *
 * Not done, see docs/SECURITY.md: the kernel's trust through a chain of
 * certificates carried in the signature, the checks of that chain, and
 * the .blacklist keyring (is_key_on_revocation_list()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "sig_private.h"

/* pkcs7_digest(): the formatted digest hashed with the signer's digest
 * algorithm, and that hash compared with messageDigest. */
static int signer_digest(struct sig_signer *s, const uint8_t *data,
			 size_t len, struct sig_result *res)
{
	const ASN1_OCTET_STRING *md = s->message_digest;

	if (!EVP_Digest(data, len, s->digest, &s->digest_len, s->md, NULL))
		return SIG_E_CRYPTO;
	if (!s->has_attributes ||
	    ((unsigned)ASN1_STRING_length(md) == s->digest_len &&
	     !memcmp(ASN1_STRING_get0_data(md), s->digest, s->digest_len)))
		return 0;
	return sig_fail(res, SIG_E_MESSAGE_DIGEST, "signer %u", s->index);
}

/* Without signed attributes the signature is over the hash itself. */
static bool digest_verifies(const struct sig_signer *s, EVP_PKEY *key)
{
	ASN1_OCTET_STRING *sig = CMS_SignerInfo_get0_signature(s->si);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
	bool ok;

	/* The kernel's "pkcs1pad(rsa)" with the hash's DigestInfo, or
	 * "x962(ecdsa)": PKCS#1 v1.5 or an X9.62 ECDSA-Sig-Value. */
	ok = ctx && EVP_PKEY_verify_init(ctx) == 1 &&
	     EVP_PKEY_CTX_set_signature_md(ctx, s->md) == 1 &&
	     (s->pkey_type != EVP_PKEY_RSA ||
	      EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1) &&
	     EVP_PKEY_verify(ctx, ASN1_STRING_get0_data(sig),
			     (size_t)ASN1_STRING_length(sig), s->digest,
			     s->digest_len) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok;
}

/*
 * public_key_verify_signature() with cert's key: the key must be of the
 * signature's algorithm (else EKEYREJECTED), then the signature over the
 * hash, or over the signed attributes (re-tagged as a SET, RFC 5652 5.4).
 */
static bool signature_verifies(struct sig_signer *s, X509 *cert)
{
	EVP_PKEY *key = X509_get0_pubkey(cert);

	if (!key || EVP_PKEY_get_base_id(key) != s->pkey_type)
		return false;
	if (!s->has_attributes)
		return digest_verifies(s, key);
	CMS_SignerInfo_set1_signer_cert(s->si, cert);
	return CMS_SignerInfo_verify(s->si) == 1;
}

/* pkcs7_find_key(): a carried certificate with the signer's issuer and
 * serial number (never one for a signer named by key identifier: the
 * kernel compares issuer and serial number only). */
static X509 *carried_signer(const struct sig_message *m,
			    const struct sig_signer *s)
{
	ASN1_OCTET_STRING *keyid = NULL;

	if (!CMS_SignerInfo_get0_signer_id(s->si, &keyid, NULL, NULL) || keyid)
		return NULL;
	for (int i = 0; i < sk_X509_num(m->carried); i++)
		if (!CMS_SignerInfo_cert_cmp(s->si, sk_X509_value(m->carried, i)))
			return sk_X509_value(m->carried, i);
	return NULL;
}

/* pkcs7_verify_one() past the digest. */
static int check_carried_signer(const struct sig_message *m,
				struct sig_signer *s, struct sig_result *res)
{
	X509 *cert = carried_signer(m, s);
	const ASN1_TIME *t = s->signing_time;

	if (!cert)
		return 0;
	if (t && (ASN1_TIME_compare(t, X509_get0_notBefore(cert)) < 0 ||
		  ASN1_TIME_compare(t, X509_get0_notAfter(cert)) > 0))
		return sig_fail(res, SIG_E_SIGNING_TIME, "signer %u",
				s->index);
	if (!signature_verifies(s, cert))
		return sig_fail(res, SIG_E_CARRIED_CERT, "signer %u",
				s->index);
	return 0;
}

static int verify_signers(struct sig_message *m, const uint8_t *data,
			  size_t len, struct sig_result *res)
{
	int err = 0;

	for (unsigned i = 0; i < m->nsigners && !err; i++) {
		err = signer_digest(&m->signers[i], data, len, res);
		if (!err)
			err = check_carried_signer(m, &m->signers[i], res);
	}
	return err;
}

/* The first trusted certificate the signer names, or -1. */
static int trusted_index(const struct sig_trust *t,
			 const struct sig_signer *s)
{
	for (size_t i = 0; i < t->count; i++)
		if (!CMS_SignerInfo_cert_cmp(s->si, t->certs[i]))
			return (int)i;
	return -1;
}

/* Who a signer says it is: issuer and serial number, or key identifier. */
static void signer_id_text(const struct sig_signer *s, char *buf, size_t len)
{
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;
	char name[SIG_TEXT_SIZE / 2] = "?";
	BIGNUM *bn = NULL;
	char *hex = NULL;

	CMS_SignerInfo_get0_signer_id(s->si, &keyid, &issuer, &serial);
	if (keyid) {
		hex = OPENSSL_buf2hexstr(ASN1_STRING_get0_data(keyid),
					 ASN1_STRING_length(keyid));
		snprintf(buf, len, "key identifier %s", hex ? hex : "?");
	} else {
		if (issuer)
			sig_name_text(issuer, name, sizeof(name));
		bn = serial ? ASN1_INTEGER_to_BN(serial, NULL) : NULL;
		hex = bn ? BN_bn2hex(bn) : NULL;
		snprintf(buf, len, "issuer '%s', serial %s", name,
			 hex ? hex : "?");
	}
	OPENSSL_free(hex);
	BN_free(bn);
}

/* pkcs7_validate_trust()'s ENOKEY, naming the first signer. */
static int untrusted(const struct sig_message *m, const struct sig_trust *t,
		     struct sig_result *res)
{
	char who[SIG_TEXT_SIZE - 64];
	size_t n = sig_trust_count(t);

	signer_id_text(&m->signers[0], who, sizeof(who));
	return sig_fail(res, SIG_E_UNTRUSTED,
			"signer %s; %zu trusted certificate%s given", who, n,
			n == 1 ? "" : "s");
}

/* pkcs7_validate_trust() against the trusted certificates. */
static int validate_trust(struct sig_message *m, const struct sig_trust *t,
			  struct sig_result *res)
{
	for (unsigned i = 0; i < m->nsigners; i++) {
		struct sig_signer *s = &m->signers[i];
		int cert = t ? trusted_index(t, s) : -1;

		if (cert < 0)
			continue;
		if (!signature_verifies(s, t->certs[cert]))
			return sig_fail(res, SIG_E_BAD_SIGNATURE,
					"signer %u, certificate '%s'", s->index,
					t->info[cert].subject);
		if (res->signer < 0)
			res->signer = cert;
	}
	return res->signer < 0 ? untrusted(m, t, res) : 0;
}

int sig_formatted_digest(unsigned hash_alg, const uint8_t *digest,
			 uint8_t *out, struct sig_result *res)
{
	int len = merkle_formatted_digest(hash_alg, digest, out);

	if (len < 0) {
		res->signer = -1;
		res->detail[0] = '\0';
	}
	return len;
}

int sig_verify(const struct sig_trust *t, unsigned hash_alg,
	       const uint8_t *digest, const void *sig, size_t sig_len,
	       struct sig_result *res)
{
	uint8_t formatted[SIG_FORMATTED_MAX];
	int len = sig_formatted_digest(hash_alg, digest, formatted, res);

	return len < 0 ? len : sig_verify_content(t, formatted, (size_t)len,
						  sig, sig_len, res);
}

int sig_verify_content(const struct sig_trust *t, const void *content,
		       size_t content_len, const void *sig, size_t sig_len,
		       struct sig_result *res)
{
	struct sig_message m;
	int err;

	res->signer = -1;
	res->detail[0] = '\0';
	err = sig_message_parse(&m, sig, sig_len, res);
	if (!err)
		err = verify_signers(&m, content, content_len, res);
	if (!err)
		err = validate_trust(&m, t, res);
	if (err)
		res->signer = -1;
	sig_message_release(&m);
	ERR_clear_error();
	return err;
}
