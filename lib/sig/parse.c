// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse.c - a signature taken apart and checked the way the kernel's
 * pkcs7_parse_message() (crypto/asymmetric_keys/pkcs7_parser.c and its
 * grammar pkcs7.asn1) does before any key is involved:
 *
 *  - a ContentInfo of type signedData (pkcs7_check_content_type());
 *  - over id-data (pkcs7_note_content(); Authenticode content is then
 *    refused by pkcs7_verify() for VERIFYING_UNSPECIFIED_SIGNATURE), with
 *    no content of its own: verify_pkcs7_message_sig() supplies the
 *    formatted digest as detached data and refuses a message that has
 *    some;
 *  - every SignerInfo with a digest and a signature algorithm the kernel
 *    knows (pkcs7_sig_note_digest_algo(), pkcs7_sig_note_pkey_algo(): an
 *    unknown one fails the whole message with ENOPKG), and signed
 *    attributes, if any, as pkcs7_sig_note_authenticated_attr() and
 *    pkcs7_sig_note_set_of_authattrs() take them;
 *  - at least one SignerInfo, all with signed attributes or all without
 *    (pkcs7_check_authattrs()).
 *
 * OpenSSL's CMS decoder does the DER; it also takes the CMS forms the
 * kernel takes (SignedData version 3, signers named by subject key
 * identifier).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/objects.h>

#include "sig_private.h"

/*
 * Microsoft's Authenticode attributes (SpcSpOpusInfo, SpcStatementType),
 * which pkcs7_sig_note_authenticated_attr() refuses outside Authenticode.
 */
#define OID_MS_SP_OPUS_INFO "1.3.6.1.4.1.311.2.1.12"
#define OID_MS_STATEMENT_TYPE "1.3.6.1.4.1.311.2.1.11"

/* The digest algorithms of pkcs7_sig_note_digest_algo() that OpenSSL 3.0
 * has (not SM3 with RSA, nor GOST's Streebog). */
static const int sig_digest_nids[] = {
	NID_sha1, NID_sha224, NID_sha256, NID_sha384, NID_sha512,
	NID_sha3_256, NID_sha3_384, NID_sha3_512,
};

/* pkcs7_sig_note_pkey_algo(): rsaEncryption (PKCS#1 v1.5) and ECDSA;
 * not GOST R 34.10 or ML-DSA, which OpenSSL 3.0 lacks. */
static int pkey_type_of(int sig_nid)
{
	switch (sig_nid) {
	case NID_rsaEncryption:
		return EVP_PKEY_RSA;
	case NID_ecdsa_with_SHA1:
	case NID_ecdsa_with_SHA224:
	case NID_ecdsa_with_SHA256:
	case NID_ecdsa_with_SHA384:
	case NID_ecdsa_with_SHA512:
	case NID_ecdsa_with_SHA3_256:
	case NID_ecdsa_with_SHA3_384:
	case NID_ecdsa_with_SHA3_512:
		return EVP_PKEY_EC;
	default:
		return NID_undef;
	}
}

static bool known_digest(int nid)
{
	for (size_t i = 0; i < sizeof(sig_digest_nids) / sizeof(int); i++)
		if (sig_digest_nids[i] == nid)
			return true;
	return false;
}

static void oid_text(const ASN1_OBJECT *obj, char *buf, int len)
{
	if (OBJ_obj2txt(buf, len, obj, 0) < 0)
		buf[0] = '\0';
}

static int check_algorithms(struct sig_signer *s, struct sig_result *res)
{
	X509_ALGOR *dig, *sig;
	const ASN1_OBJECT *obj;
	char name[80];

	CMS_SignerInfo_get0_algs(s->si, NULL, NULL, &dig, &sig);
	X509_ALGOR_get0(&obj, NULL, NULL, dig);
	if (!known_digest(OBJ_obj2nid(obj)) ||
	    !(s->md = EVP_get_digestbynid(OBJ_obj2nid(obj)))) {
		oid_text(obj, name, sizeof(name));
		return sig_fail(res, SIG_E_ALGORITHM,
				"signer %u: digest algorithm %s: use SHA-256 or SHA-512",
				s->index, name);
	}
	X509_ALGOR_get0(&obj, NULL, NULL, sig);
	s->pkey_type = pkey_type_of(OBJ_obj2nid(obj));
	if (s->pkey_type == NID_undef) {
		oid_text(obj, name, sizeof(name));
		return sig_fail(res, SIG_E_ALGORITHM,
				"signer %u: signature algorithm %s: sign with an RSA (rsaEncryption) or ECDSA key",
				s->index, name);
	}
	return 0;
}

/* The one value of an attribute the kernel allows once, of type type. */
static const ASN1_TYPE *single_value(X509_ATTRIBUTE *a, int type,
				     unsigned *seen, unsigned bit)
{
	const ASN1_TYPE *v;

	if ((*seen & bit) || X509_ATTRIBUTE_count(a) != 1)
		return NULL;
	*seen |= bit;
	v = X509_ATTRIBUTE_get0_type(a, 0);
	return v && (type < 0 || ASN1_TYPE_get(v) == type) ? v : NULL;
}

enum { SEEN_CONTENT_TYPE = 1, SEEN_SIGNING_TIME = 2, SEEN_DIGEST = 4 };

/* A signingTime value x509_decode_time() takes. */
static const ASN1_TIME *signing_time(const ASN1_TYPE *v)
{
	int type = v ? ASN1_TYPE_get(v) : -1;
	const ASN1_TIME *t = NULL;

	if (type == V_ASN1_UTCTIME)
		t = v->value.utctime;
	else if (type == V_ASN1_GENERALIZEDTIME)
		t = v->value.generalizedtime;
	return t && ASN1_TIME_check(t) ? t : NULL;
}

/* pkcs7_sig_note_authenticated_attr() on attribute a. */
static const char *check_attribute(struct sig_signer *s, X509_ATTRIBUTE *a,
				   unsigned *seen)
{
	const ASN1_OBJECT *obj = X509_ATTRIBUTE_get0_object(a);
	const ASN1_TYPE *v;
	char oid[80];

	switch (OBJ_obj2nid(obj)) {
	case NID_pkcs9_contentType:
		v = single_value(a, V_ASN1_OBJECT, seen, SEEN_CONTENT_TYPE);
		return v && OBJ_obj2nid(v->value.object) == NID_pkcs7_data ? NULL :
		       "contentType attribute repeated or not id-data";
	case NID_pkcs9_signingTime:
		v = single_value(a, -1, seen, SEEN_SIGNING_TIME);
		s->signing_time = signing_time(v);
		return s->signing_time ? NULL :
		       "signingTime attribute repeated or not a valid time";
	case NID_pkcs9_messageDigest:
		v = single_value(a, V_ASN1_OCTET_STRING, seen, SEEN_DIGEST);
		s->message_digest = v ? v->value.octet_string : NULL;
		return v ? NULL :
		       "messageDigest attribute repeated or not an OCTET STRING";
	case NID_SMIMECapabilities:
		return "S/MIME capabilities attribute (the kernel allows it only in Authenticode: sign with -noattr)";
	default:
		if (OBJ_obj2txt(oid, sizeof(oid), obj, 1) > 0 &&
		    (!strcmp(oid, OID_MS_SP_OPUS_INFO) ||
		     !strcmp(oid, OID_MS_STATEMENT_TYPE)))
			return "an Authenticode attribute (the kernel allows it only in Authenticode)";
		return NULL;	/* the kernel ignores the others */
	}
}

static int check_attributes(struct sig_signer *s, struct sig_result *res)
{
	int n = CMS_signed_get_attr_count(s->si);
	unsigned seen = 0;
	const char *why;

	s->has_attributes = n >= 0;
	for (int i = 0; i < n; i++) {
		why = check_attribute(s, CMS_signed_get_attr(s->si, i), &seen);
		if (why)
			return sig_fail(res, SIG_E_ATTRIBUTES, "signer %u: %s",
					s->index, why);
	}
	if (s->has_attributes &&
	    (seen & (SEEN_CONTENT_TYPE | SEEN_DIGEST)) !=
	    (SEEN_CONTENT_TYPE | SEEN_DIGEST))
		return sig_fail(res, SIG_E_ATTRIBUTES,
				"signer %u: signed attributes without contentType and messageDigest",
				s->index);
	return 0;
}

/* The ContentInfo around the signers: pkcs7_check_content_type(),
 * pkcs7_note_content() and the detached-data rule. */
static int check_content(CMS_ContentInfo *cms, struct sig_result *res)
{
	ASN1_OCTET_STRING **content;

	if (OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed)
		return sig_fail(res, SIG_E_MALFORMED,
				"a PKCS#7 message, but not SignedData");
	if (OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_pkcs7_data)
		return SIG_E_CONTENT_TYPE;
	content = CMS_get0_content(cms);
	if (content && *content)
		return sig_fail(res, SIG_E_NOT_DETACHED,
				"%d bytes of content: sign with -binary and detached (fsverity sign does)",
				ASN1_STRING_length(*content));
	return 0;
}

static int parse_signers(struct sig_message *m, struct sig_result *res)
{
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(m->cms);
	int n = sis ? sk_CMS_SignerInfo_num(sis) : 0, err = 0;

	if (n <= 0)
		return SIG_E_NO_SIGNER;
	m->signers = calloc((size_t)n, sizeof(*m->signers));
	if (!m->signers)
		return -ENOMEM;
	for (int i = 0; i < n && !err; i++) {
		struct sig_signer *s = &m->signers[i];

		s->si = sk_CMS_SignerInfo_value(sis, i);
		s->index = (unsigned)i + 1;
		m->nsigners++;
		err = check_algorithms(s, res);
		if (!err)
			err = check_attributes(s, res);
		if (!err && s->has_attributes != m->signers[0].has_attributes)
			err = sig_fail(res, SIG_E_ATTRIBUTES,
				       "signer %u has signed attributes and signer 1 %s: all or none must",
				       s->index,
				       s->has_attributes ? "has none" : "has some");
	}
	return err;
}

int sig_message_parse(struct sig_message *m, const void *sig, size_t len,
		      struct sig_result *res)
{
	const unsigned char *p = sig;
	int err;

	memset(m, 0, sizeof(*m));
	/* Trailing bytes are left alone: asn1_ber_decoder() stops at the
	 * end of the outer SEQUENCE and never looks past it. */
	m->cms = len <= SIG_MAX_SIZE ? d2i_CMS_ContentInfo(NULL, &p, (long)len) :
				       NULL;
	if (!m->cms)
		err = len > SIG_MAX_SIZE ? SIG_E_TOO_LARGE : SIG_E_MALFORMED;
	else
		err = check_content(m->cms, res);
	if (!err)
		err = parse_signers(m, res);
	if (!err)
		m->carried = CMS_get1_certs(m->cms);
	ERR_clear_error();
	return err;
}

void sig_message_release(struct sig_message *m)
{
	sk_X509_pop_free(m->carried, X509_free);
	free(m->signers);
	CMS_ContentInfo_free(m->cms);
	memset(m, 0, sizeof(*m));
}
