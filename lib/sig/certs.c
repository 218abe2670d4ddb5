// SPDX-License-Identifier: GPL-2.0-only
/*
 * certs.c - the trusted certificates, vublk's ".fs-verity" keyring.
 *
 * The kernel's keyring takes a DER certificate (`keyctl padd asymmetric
 * '' %keyring:.fs-verity < cert.der`); x509_key_preparse() parses it and
 * refuses only what it cannot parse or a blacklisted key: it has no check
 * of the validity dates (the kernel has had none since before fs-verity
 * existed) and none of key usage (x509_cert_parser.c records keyUsage, but
 * only the CA restrictions of restrict.c read it, and the .fs-verity
 * keyring has none).  We take PEM too, and refuse the same way; what the
 * kernel ignores is reported in struct sig_cert_info for a warning.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "sig_private.h"

int sig_trust_new(struct sig_trust **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void sig_trust_free(struct sig_trust *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->count; i++)
		X509_free(t->certs[i]);
	free(t->certs);
	free(t->info);
	free(t);
}

size_t sig_trust_count(const struct sig_trust *t)
{
	return t ? t->count : 0;
}

const struct sig_cert_info *sig_trust_info(const struct sig_trust *t,
					   size_t i)
{
	return &t->info[i];
}

/* What was printed into bio (when printed), as a C string; frees bio. */
static void bio_text(BIO *bio, bool printed, char *buf, size_t len)
{
	int n = bio && printed ? BIO_read(bio, buf, (int)len - 1) : 0;

	buf[n > 0 ? n : 0] = '\0';
	BIO_free(bio);
}

void sig_name_text(const X509_NAME *name, char *buf, size_t len)
{
	BIO *bio = BIO_new(BIO_s_mem());

	bio_text(bio, bio && X509_NAME_print_ex(bio, name, 0,
						XN_FLAG_RFC2253) >= 0,
		 buf, len);
}

static void time_text(const ASN1_TIME *t, char *buf, size_t len)
{
	BIO *bio = BIO_new(BIO_s_mem());

	bio_text(bio, bio && ASN1_TIME_print(bio, t), buf, len);
}

/*
 * Key usage a signature would want (RFC 5280 4.2.1.3 and 4.2.1.12):
 * digitalSignature, and codeSigning if extended key usage is restricted.
 * The kernel checks neither for fs-verity.
 */
static bool usage_restricted(X509 *cert)
{
	uint32_t ku = X509_get_key_usage(cert);
	uint32_t eku = X509_get_extended_key_usage(cert);

	if (ku != UINT32_MAX && !(ku & KU_DIGITAL_SIGNATURE))
		return true;
	return eku != UINT32_MAX && !(eku & (XKU_CODE_SIGN | XKU_ANYEKU));
}

static void describe(X509 *cert, struct sig_cert_info *info)
{
	const ASN1_TIME *nb = X509_get0_notBefore(cert);
	const ASN1_TIME *na = X509_get0_notAfter(cert);

	sig_name_text(X509_get_subject_name(cert), info->subject,
		      sizeof(info->subject));
	time_text(nb, info->not_before, sizeof(info->not_before));
	time_text(na, info->not_after, sizeof(info->not_after));
	info->flags = 0;
	/* X509_cmp_current_time(): -1 before now, 1 after, 0 on error. */
	if (X509_cmp_current_time(na) < 0)
		info->flags |= SIG_CERT_EXPIRED;
	if (X509_cmp_current_time(nb) > 0)
		info->flags |= SIG_CERT_NOT_YET_VALID;
	if (usage_restricted(cert))
		info->flags |= SIG_CERT_USAGE;
}

/* PEM: the first CERTIFICATE block, and no second one. */
static int parse_pem(const void *buf, size_t len, X509 **out)
{
	BIO *bio = BIO_new_mem_buf(buf, (int)len);
	X509 *extra;
	int err = 0;

	if (!bio)
		return -ENOMEM;
	*out = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	if (!*out) {
		err = SIG_E_NOT_CERT;
	} else {
		extra = PEM_read_bio_X509(bio, NULL, NULL, NULL);
		if (extra) {
			X509_free(extra);
			X509_free(*out);
			*out = NULL;
			err = SIG_E_CERT_EXTRA;
		}
	}
	BIO_free(bio);
	return err;
}

/* DER: exactly one certificate, nothing after it. */
static int parse_der(const void *buf, size_t len, X509 **out)
{
	const unsigned char *p = buf;

	*out = d2i_X509(NULL, &p, (long)len);
	if (*out && p == (const unsigned char *)buf + len)
		return 0;
	X509_free(*out);
	*out = NULL;
	return SIG_E_NOT_CERT;
}

static bool looks_like_pem(const void *buf, size_t len)
{
	return memmem(buf, len, "-----BEGIN", 10) != NULL;
}

/* The signature algorithms of parse.c: RSA and ECDSA keys. */
static int check_key_type(X509 *cert)
{
	int type = X509_get0_pubkey(cert) ?
		   EVP_PKEY_get_base_id(X509_get0_pubkey(cert)) : NID_undef;

	return type == EVP_PKEY_RSA || type == EVP_PKEY_EC ? 0 :
	       SIG_E_CERT_KEY_TYPE;
}

static int append(struct sig_trust *t, X509 *cert)
{
	X509 **certs = realloc(t->certs, (t->count + 1) * sizeof(*certs));
	struct sig_cert_info *info;

	if (certs)
		t->certs = certs;
	info = certs ? realloc(t->info, (t->count + 1) * sizeof(*info)) :
		       NULL;
	if (!info)
		return -ENOMEM;
	t->info = info;
	t->certs[t->count] = cert;
	describe(cert, &t->info[t->count]);
	return (int)t->count++;
}

int sig_trust_add(struct sig_trust *t, const void *buf, size_t len)
{
	X509 *cert = NULL;
	int ret;

	if (len > SIG_MAX_CERT_FILE)
		return SIG_E_FILE_TOO_LARGE;
	ret = looks_like_pem(buf, len) ? parse_pem(buf, len, &cert) :
					 parse_der(buf, len, &cert);
	if (!ret)
		ret = check_key_type(cert);
	if (!ret)
		ret = append(t, cert);
	if (ret < 0)
		X509_free(cert);
	ERR_clear_error();
	return ret;
}

int sig_trust_add_file(struct sig_trust *t, const char *path)
{
	uint8_t *buf;
	size_t len;
	int ret = sig_read_whole(path, SIG_MAX_CERT_FILE, SIG_E_FILE_TOO_LARGE,
				 &buf, &len);

	if (ret)
		return ret;
	ret = sig_trust_add(t, buf, len);
	free(buf);
	return ret;
}
