// SPDX-License-Identifier: GPL-2.0-only
/*
 * sign.c - a builtin signature made as `fsverity sign` makes it.
 *
 * fsverity-utils' lib/sign_digest.c (libfsverity_sign_digest() with
 * OpenSSL): the same inputs (PEM certificate, PEM private key, the
 * formatted digest), the same OpenSSL calls in the same order and with the
 * same flags, so that the DER is the same byte for byte:
 *
 *   PKCS7_BINARY    binary data, no MIME translation
 *   PKCS7_DETACHED  the formatted digest is not included
 *   PKCS7_NOATTR    no signed attributes (no signing time, no S/MIME
 *                   capabilities, which the kernel would refuse)
 *   PKCS7_NOCERTS   the certificate is not included: the kernel finds the
 *                   signer in its keyring by issuer and serial number
 *   PKCS7_PARTIAL   so that the digest algorithm can be chosen: the file
 *                   digest's own (SHA-256 or SHA-512), by name
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>

#include "openinput.h"
#include "sig_private.h"

#define SIGN_FLAGS (PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOATTR | \
		    PKCS7_NOCERTS | PKCS7_PARTIAL)

/* A PEM object from path with read(); -errno when it can't be opened. */
static int read_pem(const char *path, void *(*read)(BIO *), void **out,
		    int not_that)
{
	int fd = open_input(path, O_RDONLY);
	BIO *bio;

	if (fd < 0)
		return fd;
	bio = BIO_new_fd(fd, BIO_CLOSE);
	if (!bio) {
		close(fd);
		return -ENOMEM;
	}
	*out = read(bio);
	BIO_free(bio);
	return *out ? 0 : not_that;
}

/* fsverity-utils' read_certificate() and read_private_key(). */
static void *read_cert(BIO *bio)
{
	return PEM_read_bio_X509(bio, NULL, NULL, NULL);
}

static void *read_key(BIO *bio)
{
	return PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
}

/* The DER of a finished PKCS#7, copied into a malloc'd buffer. */
static int der_copy(PKCS7 *p7, uint8_t **sig, size_t *sig_len)
{
	BIO *out = BIO_new(BIO_s_mem());
	char *der;
	long len;
	int err = SIG_E_CRYPTO;

	if (out && i2d_PKCS7_bio(out, p7) == 1) {
		len = BIO_get_mem_data(out, &der);
		*sig = len > 0 ? malloc((size_t)len) : NULL;
		err = *sig ? 0 : -ENOMEM;
		if (*sig) {
			memcpy(*sig, der, (size_t)len);
			*sig_len = (size_t)len;
		}
	}
	BIO_free(out);
	return err;
}

/* fsverity-utils' sign_pkcs7() (OpenSSL branch), step by step. */
static int sign_pkcs7(const uint8_t *data, size_t len, EVP_PKEY *key,
		      X509 *cert, const EVP_MD *md, uint8_t **sig,
		      size_t *sig_len)
{
	BIO *bio = BIO_new_mem_buf(data, (int)len);
	PKCS7 *p7 = bio ? PKCS7_sign(NULL, NULL, NULL, bio, SIGN_FLAGS) : NULL;
	int err = SIG_E_CRYPTO;

	if (p7 && !PKCS7_sign_add_signer(p7, cert, key, md, SIGN_FLAGS))
		err = X509_check_private_key(cert, key) ? SIG_E_CRYPTO :
		      SIG_E_KEY_MISMATCH;
	else if (p7 && PKCS7_final(p7, bio, SIGN_FLAGS) == 1)
		err = der_copy(p7, sig, sig_len);
	PKCS7_free(p7);
	BIO_free(bio);
	return err;
}

int sig_sign(unsigned hash_alg, const uint8_t *digest, const char *key_path,
	     const char *cert_path, uint8_t **sig, size_t *sig_len)
{
	uint8_t formatted[12 + MERKLE_MAX_DIGEST_SIZE];
	int len = merkle_formatted_digest(hash_alg, digest, formatted);
	void *cert = NULL, *key = NULL;
	const EVP_MD *md;
	int err;

	if (len < 0)
		return len;
	/* The digest algorithm of the file digest, as fsverity-utils picks
	 * it: EVP_get_digestbyname() of "sha256" or "sha512". */
	md = EVP_get_digestbyname(merkle_hash_alg_name(hash_alg));
	err = md ? 0 : SIG_E_CRYPTO;
	if (!err)
		err = read_pem(cert_path ? cert_path : key_path, read_cert,
			       &cert, SIG_E_NOT_CERT);
	if (!err)
		err = read_pem(key_path, read_key, &key, SIG_E_NOT_KEY);
	if (!err)
		err = sign_pkcs7(formatted, (size_t)len, key, cert, md, sig,
				 sig_len);
	if (!err && *sig_len > SIG_MAX_SIZE) {
		free(*sig);
		err = SIG_E_TOO_LARGE;
	}
	X509_free(cert);
	EVP_PKEY_free(key);
	ERR_clear_error();
	return err;
}
