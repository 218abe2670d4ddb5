// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pki.c - the keys and certificates of test_pki.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "test_pki.h"

#define SIGNER_USAGE "critical,digitalSignature"

static const struct test_pki_spec test_pki_specs[TEST_PKI_COUNT] = {
	[TEST_PKI_TRUSTED] = { .name = "trusted", .key_type = EVP_PKEY_RSA,
			       .serial = 0x1001, .not_before_days = -1,
			       .not_after_days = 3650,
			       .key_usage = SIGNER_USAGE },
	[TEST_PKI_OTHER] = { .name = "other", .key_type = EVP_PKEY_RSA,
			     .serial = 0x1002, .not_before_days = -1,
			     .not_after_days = 3650,
			     .key_usage = SIGNER_USAGE },
	[TEST_PKI_SAME_ID] = { .name = "same-id", .key_type = EVP_PKEY_RSA,
			       .serial = 0x1001, .not_before_days = -1,
			       .not_after_days = 3650,
			       .key_usage = SIGNER_USAGE,
			       .same_name_as = "trusted" },
	[TEST_PKI_EXPIRED] = { .name = "expired", .key_type = EVP_PKEY_EC,
			       .serial = 0x1003, .not_before_days = -9000,
			       .not_after_days = -8000,
			       .key_usage = SIGNER_USAGE },
	[TEST_PKI_FUTURE] = { .name = "future", .key_type = EVP_PKEY_EC,
			      .serial = 0x1004, .not_before_days = 3650,
			      .not_after_days = 7300,
			      .key_usage = SIGNER_USAGE },
	[TEST_PKI_USAGE] = { .name = "usage", .key_type = EVP_PKEY_EC,
			     .serial = 0x1005, .not_before_days = -1,
			     .not_after_days = 3650,
			     .key_usage = "critical,keyCertSign",
			     .ext_key_usage = "serverAuth" },
	[TEST_PKI_EC] = { .name = "ec", .key_type = EVP_PKEY_EC,
			  .serial = 0x1006, .not_before_days = -1,
			  .not_after_days = 3650, .key_usage = SIGNER_USAGE },
	[TEST_PKI_CA] = { .name = "ca", .key_type = EVP_PKEY_EC,
			  .serial = 0x1007, .not_before_days = -1,
			  .not_after_days = 3650,
			  .key_usage = "critical,keyCertSign", .ca = true },
	[TEST_PKI_LEAF] = { .name = "leaf", .key_type = EVP_PKEY_EC,
			    .serial = 0x1008, .not_before_days = -1,
			    .not_after_days = 3650,
			    .key_usage = SIGNER_USAGE, .issuer = "ca" },
};

/* Entry i's key: one of the fixed RSA keys, or a new ECDSA key. */
static EVP_PKEY *make_key(int i)
{
	BIO *bio;
	EVP_PKEY *key;

	if (test_pki_specs[i].key_type == EVP_PKEY_EC)
		return EVP_EC_gen("P-256");
	if (i >= TEST_PKI_RSA_KEYS)
		return NULL;
	bio = BIO_new_mem_buf(test_pki_rsa_keys[i], -1);
	key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	return key;
}

static const struct test_pki_entry *find(const struct test_pki *pki,
					 const char *name)
{
	for (int i = 0; i < TEST_PKI_COUNT; i++)
		if (pki->e[i].cert && !strcmp(pki->e[i].spec->name, name))
			return &pki->e[i];
	return NULL;
}

static bool add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	bool ok;

	if (!value)
		return true;
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	ok = ext && X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

static bool set_names(X509 *cert, const struct test_pki_spec *s,
		      const struct test_pki *pki, X509 *issuer)
{
	const struct test_pki_entry *same = s->same_name_as ?
					    find(pki, s->same_name_as) : NULL;
	X509_NAME *name = X509_NAME_new();
	char cn[64];
	bool ok;

	snprintf(cn, sizeof(cn), "vublk test %s", s->name);
	ok = name && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
						(const unsigned char *)cn,
						-1, -1, 0) &&
	     X509_set_subject_name(cert, same ? X509_get_subject_name(same->cert) :
					       name) &&
	     X509_set_issuer_name(cert, X509_get_subject_name(issuer));
	X509_NAME_free(name);
	return ok;
}

/* The certificate of e, signed by issuer (e itself when self-signed). */
static bool make_cert(struct test_pki_entry *e, const struct test_pki *pki,
		      const struct test_pki_entry *issuer)
{
	const struct test_pki_spec *s = e->spec;
	X509 *ic = issuer ? issuer->cert : e->cert;

	return X509_set_version(e->cert, X509_VERSION_3) &&
	       ASN1_INTEGER_set(X509_get_serialNumber(e->cert), s->serial) &&
	       X509_time_adj_ex(X509_getm_notBefore(e->cert),
				(int)s->not_before_days, 0, NULL) &&
	       X509_time_adj_ex(X509_getm_notAfter(e->cert),
				(int)s->not_after_days, 0, NULL) &&
	       X509_set_pubkey(e->cert, e->key) &&
	       set_names(e->cert, s, pki, ic) &&
	       add_ext(e->cert, ic, NID_basic_constraints,
		       s->ca ? "critical,CA:TRUE" : NULL) &&
	       add_ext(e->cert, ic, NID_key_usage, s->key_usage) &&
	       add_ext(e->cert, ic, NID_ext_key_usage, s->ext_key_usage) &&
	       add_ext(e->cert, ic, NID_subject_key_identifier, "hash") &&
	       add_ext(e->cert, ic, NID_authority_key_identifier,
		       issuer ? "keyid" : NULL) &&
	       X509_sign(e->cert, issuer ? issuer->key : e->key,
			 EVP_sha256()) > 0;
}

bool test_pki_make(struct test_pki *pki, unsigned which)
{
	memset(pki, 0, sizeof(*pki));
	for (int i = 0; i < TEST_PKI_COUNT; i++) {
		struct test_pki_entry *e = &pki->e[i];

		e->spec = &test_pki_specs[i];
		if (!(which & (1u << i)))
			continue;
		e->key = make_key(i);
		e->cert = X509_new();
		if (!e->key || !e->cert ||
		    !make_cert(e, pki, e->spec->issuer ?
				       find(pki, e->spec->issuer) : NULL)) {
			fprintf(stderr, "test_pki: cannot make '%s':\n",
				e->spec->name);
			ERR_print_errors_fp(stderr);
			test_pki_free(pki);
			return false;
		}
	}
	return true;
}

void test_pki_free(struct test_pki *pki)
{
	for (int i = 0; i < TEST_PKI_COUNT; i++) {
		EVP_PKEY_free(pki->e[i].key);
		X509_free(pki->e[i].cert);
		pki->e[i].key = NULL;
		pki->e[i].cert = NULL;
	}
}

unsigned char *test_pki_der(X509 *cert, size_t *len)
{
	unsigned char *der = NULL;
	int n = i2d_X509(cert, &der);

	*len = n > 0 ? (size_t)n : 0;
	return n > 0 ? der : NULL;
}

int test_pki_sign(const struct test_pki_cms *s, const void *data,
		  size_t len, unsigned char **der)
{
	unsigned base = CMS_BINARY | CMS_PARTIAL | s->flags;
	const EVP_MD *md = s->md ? s->md : EVP_sha256();
	CMS_ContentInfo *cms = CMS_sign(NULL, NULL, NULL, NULL, base);
	BIO *bio = BIO_new_mem_buf(data, (int)len);
	bool ok = cms && bio;
	int n = -1;

	*der = NULL;
	if (ok && s->content_nid)
		ok = CMS_set1_eContentType(cms, OBJ_nid2obj(s->content_nid));
	for (int i = 0; ok && i < 2 && s->signers[i]; i++)
		ok = CMS_add1_signer(cms, s->signers[i]->cert,
				     s->signers[i]->key, md,
				     i ? (s->flags2 | CMS_BINARY) : base) != NULL;
	if (ok && s->carry)
		ok = CMS_add1_cert(cms, s->carry);
	if (ok && CMS_final(cms, bio, NULL, base))
		n = i2d_CMS_ContentInfo(cms, der);
	if (n <= 0)
		ERR_print_errors_fp(stderr);
	CMS_ContentInfo_free(cms);
	BIO_free(bio);
	return n > 0 ? n : -1;
}
