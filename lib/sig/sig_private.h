/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sig_private.h - what the files of lib/sig share: the trusted
 * certificates, a signature parsed into its signers, and small helpers.
 * Included only by lib/sig's own files.
 *
 * The files follow the kernel's split of crypto/asymmetric_keys/:
 *   certs.c     the keyring: trusted certificates (x509_public_key.c)
 *   parse.c     pkcs7_parser.c: structure, algorithms, attributes
 *   verify.c    pkcs7_verify.c and pkcs7_trust.c: digests, signatures,
 *               trust
 *   check.c     which signature to check (--signature, embedded, none)
 *   sign.c      fsverity-utils' lib/sign_digest.c
 *   file.c      reading key, certificate and signature files
 *   errors.c    sig_strerror()
 */
#ifndef VUBLK_SIG_PRIVATE_H
#define VUBLK_SIG_PRIVATE_H

#include <openssl/cms.h>
#include <openssl/x509.h>

#include "sig.h"

/* A certificate file larger than this is not one. */
#define SIG_MAX_CERT_FILE (1u << 20)

struct sig_trust {
	X509 **certs;
	struct sig_cert_info *info;
	size_t count;
};

/* One SignerInfo, with what parse.c found in it. */
struct sig_signer {
	CMS_SignerInfo *si;
	unsigned index;			/* 1-based, for messages */
	const EVP_MD *md;		/* its digest algorithm */
	int pkey_type;			/* EVP_PKEY_RSA or EVP_PKEY_EC */
	bool has_attributes;		/* signed attributes */
	const ASN1_OCTET_STRING *message_digest; /* when has_attributes */
	const ASN1_TIME *signing_time;	/* NULL when absent */
	/* verify.c: the hash of the formatted digest (pkcs7_digest()). */
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned digest_len;
};

/* A signature as pkcs7_parse_message() leaves it. */
struct sig_message {
	CMS_ContentInfo *cms;
	STACK_OF(X509) *carried;	/* the certificates it carries, or NULL */
	struct sig_signer *signers;
	unsigned nsigners;
};

/* parse.c: 0 or a SIG_E_* code with res->detail set. */
int sig_message_parse(struct sig_message *m, const void *sig, size_t len,
		      struct sig_result *res);
void sig_message_release(struct sig_message *m);

/* Fill res->detail (printf) and return err. */
int sig_fail(struct sig_result *res, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* OpenSSL's one-line name of an X509_NAME (RFC 2253), cut to len. */
void sig_name_text(const X509_NAME *name, char *buf, size_t len);

/* file.c: the whole of path, at most max bytes (else too_large). */
int sig_read_whole(const char *path, size_t max, int too_large,
		   uint8_t **buf, size_t *len);

/* verify.c: the "FSVerity" formatted digest that fs-verity signatures
 * sign, into out (SIG_FORMATTED_MAX bytes); its length, or an error with
 * res reset. */
#define SIG_FORMATTED_MAX (12 + MERKLE_MAX_DIGEST_SIZE)
int sig_formatted_digest(unsigned hash_alg, const uint8_t *digest,
			 uint8_t *out, struct sig_result *res);

#endif /* VUBLK_SIG_PRIVATE_H */
