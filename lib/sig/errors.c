// SPDX-License-Identifier: GPL-2.0-only
/*
 * errors.c - text for the library's negative return values.  The texts of
 * the verification codes end with what the kernel answers
 * (fs/verity/signature.c prints the same cases).
 */
#include <stdarg.h>
#include <stdio.h>

#include "sig_private.h"

static const char *const sig_error_text[] = {
	[SIG_E_NOT_KEY - SIG_E_NOT_KEY] =
		"not a PEM private key (PKCS#8 or traditional)",
	[SIG_E_NOT_CERT - SIG_E_NOT_KEY] =
		"not an X.509 certificate in PEM or DER",
	[SIG_E_CERT_EXTRA - SIG_E_NOT_KEY] =
		"holds more than one certificate: give each one on its own",
	[SIG_E_CERT_KEY_TYPE - SIG_E_NOT_KEY] =
		"certificate key is neither RSA nor ECDSA",
	[SIG_E_KEY_MISMATCH - SIG_E_NOT_KEY] =
		"private key does not belong to the certificate",
	[SIG_E_TOO_LARGE - SIG_E_NOT_KEY] =
		"signature larger than 16128 bytes, the most fs-verity stores after a descriptor",
	[SIG_E_FILE_TOO_LARGE - SIG_E_NOT_KEY] =
		"file larger than 1 MiB: not a certificate",
	[SIG_E_EMPTY - SIG_E_NOT_KEY] =
		"empty: the file holds no signature (a FIFO reads empty until its writer has opened it)",
	[SIG_E_NO_TRUST - SIG_E_NOT_KEY] =
		"a signature must be checked but no trusted certificate was given",
	[SIG_E_REQUIRED - SIG_E_NOT_KEY] =
		"unsigned, and a signature is required (the kernel: EPERM with require_signatures=1)",
	[SIG_E_MALFORMED - SIG_E_NOT_KEY] =
		"malformed: not a DER PKCS#7 SignedData (the kernel: EBADMSG)",
	[SIG_E_NO_SIGNER - SIG_E_NOT_KEY] =
		"malformed: no signer in the PKCS#7 (the kernel: EINVAL)",
	[SIG_E_NOT_DETACHED - SIG_E_NOT_KEY] =
		"not detached: the PKCS#7 carries content of its own (the kernel: EBADMSG)",
	[SIG_E_CONTENT_TYPE - SIG_E_NOT_KEY] =
		"signed content type is not id-data (the kernel: EINVAL or EKEYREJECTED)",
	[SIG_E_ALGORITHM - SIG_E_NOT_KEY] =
		"unsupported algorithm (the kernel: ENOPKG)",
	[SIG_E_ATTRIBUTES - SIG_E_NOT_KEY] =
		"signed attributes refused (the kernel: EBADMSG, EKEYREJECTED or EINVAL)",
	[SIG_E_MESSAGE_DIGEST - SIG_E_NOT_KEY] =
		"messageDigest attribute is not the hash of what is signed (this image's formatted digest, or root hash) (the kernel: EKEYREJECTED)",
	[SIG_E_SIGNING_TIME - SIG_E_NOT_KEY] =
		"signed outside the validity of the certificate it carries (the kernel: EKEYREJECTED)",
	[SIG_E_CARRIED_CERT - SIG_E_NOT_KEY] =
		"the certificate it carries does not verify it (the kernel: EKEYREJECTED)",
	[SIG_E_UNTRUSTED - SIG_E_NOT_KEY] =
		"not signed by a trusted certificate (the kernel: ENOKEY, \"File's signing cert isn't in the fs-verity keyring\")",
	[SIG_E_BAD_SIGNATURE - SIG_E_NOT_KEY] =
		"does not verify with the trusted certificate's key: made for other data, or forged (the kernel: EKEYREJECTED, \"Incorrect file signature\")",
	[SIG_E_CRYPTO - SIG_E_NOT_KEY] =
		"OpenSSL failed (out of memory?)",
};

#define SIG_NR_ERRORS (sizeof(sig_error_text) / sizeof(sig_error_text[0]))

const char *sig_strerror(int err)
{
	if (err >= SIG_E_NOT_KEY &&
	    (size_t)(err - SIG_E_NOT_KEY) < SIG_NR_ERRORS)
		return sig_error_text[err - SIG_E_NOT_KEY];
	return merkle_strerror(err);
}

int sig_fail(struct sig_result *res, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
	return err;
}
