/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sig.h - fs-verity builtin signatures: made as fsverity-utils makes them,
 * checked as the kernel checks them.
 *
 * This is the one public header of lib/sig.  A builtin signature is a
 * detached PKCS#7 SignedData, in DER, over the kernel's
 * struct fsverity_formatted_digest ("FSVerity", le16 algorithm, le16
 * size, the file digest: merkle_formatted_digest()).  The kernel stores it
 * after the descriptor (sig_size) and checks it against the X.509
 * certificates of its ".fs-verity" keyring (fs/verity/signature.c:
 * fsverity_verify_signature() -> certs/system_keyring.c:
 * verify_pkcs7_signature()).
 *
 *  - sig_sign() writes the bytes `fsverity sign` (fsverity-utils'
 *    lib/sign_digest.c) writes for the same digest, key and certificate:
 *    PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOATTR | PKCS7_NOCERTS, the
 *    digest algorithm of the file digest (SHA-256 or SHA-512).  RSA
 *    signatures are deterministic, so the files are byte-identical; ECDSA
 *    ones are not (a random nonce), for fsverity-utils either.
 *  - struct sig_trust plays the keyring: the certificates given with
 *    --trusted-cert.  sig_verify() accepts a signature when, as in
 *    crypto/asymmetric_keys/pkcs7_verify.c and pkcs7_trust.c, it parses,
 *    is detached over id-data, its signed attributes (if any) pass the
 *    kernel's rules, every signer whose certificate the signature carries
 *    verifies with it, and at least one signer IS one of the trusted
 *    certificates (matched by issuer and serial number, or subject key
 *    identifier) whose key verifies its signature; a trusted signer whose
 *    key does not verify refuses the whole signature.  vublk builds no
 *    chain: a signer certificate carried in the signature and issued by
 *    a trusted one is not trusted (the kernel's pkcs7_validate_trust_one()
 *    would accept it; docs/SECURITY.md lists every difference).
 *  - dm-verity's root hash signatures are the same PKCS#7, detached over
 *    the root hash as lowercase hex text (drivers/md/dm-verity-verify-sig.c:
 *    verity_verify_root_hash() gets the table's hex string, which
 *    veritysetup writes in lowercase), checked by the same kernel code
 *    against its keyring: sig_verify_content() and sig_check_content()
 *    take such content.
 *  - Like the kernel, nothing here looks at the clock or at key usage:
 *    an expired, not yet valid or wrong-usage certificate verifies.
 *    struct sig_cert_info says so, for the caller to warn.
 *
 * Errors: functions return 0 (or a documented non-negative value), -errno
 * (I/O, memory), or one of the SIG_E_* codes below; sig_strerror() names
 * them all.  Each verification code says which answer the kernel gives
 * for the same signature.
 *
 * Thread safety: a struct sig_trust may be read from several threads once
 * filled; everything else is plain data or stateless.
 */
#ifndef VUBLK_SIG_H
#define VUBLK_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merkle.h"

/* The kernel's FS_VERITY_MAX_SIGNATURE_SIZE: what fits after a descriptor. */
#define SIG_MAX_SIZE (MERKLE_MAX_DESCRIPTOR_SIZE - MERKLE_DESCRIPTOR_SIZE)
/* Bytes of the text fields below, NUL included (longer text is cut). */
#define SIG_TEXT_SIZE 256

enum sig_error {
	/* Files the caller names (keys, certificates, signatures). */
	SIG_E_NOT_KEY = -3000,	/* not a PEM private key */
	SIG_E_NOT_CERT,		/* not an X.509 certificate, PEM or DER */
	SIG_E_CERT_EXTRA,	/* more than one certificate in one file */
	SIG_E_CERT_KEY_TYPE,	/* a key that is neither RSA nor EC */
	SIG_E_KEY_MISMATCH,	/* the private key is not the certificate's */
	SIG_E_TOO_LARGE,	/* over SIG_MAX_SIZE (kernel: EMSGSIZE) */
	SIG_E_FILE_TOO_LARGE,	/* a certificate file over 1 MiB */
	SIG_E_EMPTY,		/* a signature file with nothing in it */
	/* What was asked for (sig_check()). */
	SIG_E_NO_TRUST,		/* a signature to check, no certificate */
	SIG_E_REQUIRED,		/* unsigned; a signature is required
				 * (kernel: EPERM, require_signatures=1) */
	/* The signature (sig_verify()); the kernel's answer in brackets. */
	SIG_E_MALFORMED,	/* not DER PKCS#7 SignedData [EBADMSG] */
	SIG_E_NO_SIGNER,	/* no SignerInfo [EINVAL] */
	SIG_E_NOT_DETACHED,	/* it carries content [EBADMSG] */
	SIG_E_CONTENT_TYPE,	/* content type is not id-data
				 * [EINVAL or EKEYREJECTED] */
	SIG_E_ALGORITHM,	/* a digest or signature algorithm the kernel
				 * (or vublk) does not take [ENOPKG] */
	SIG_E_ATTRIBUTES,	/* signed attributes the kernel refuses
				 * [EBADMSG, EKEYREJECTED or EINVAL] */
	SIG_E_MESSAGE_DIGEST,	/* messageDigest attribute is not the hash
				 * of the formatted digest [EKEYREJECTED] */
	SIG_E_SIGNING_TIME,	/* signingTime outside the carried signer
				 * certificate's validity [EKEYREJECTED] */
	SIG_E_CARRIED_CERT,	/* a certificate carried in the signature
				 * does not verify its signer [EKEYREJECTED] */
	SIG_E_UNTRUSTED,	/* no signer is a trusted certificate
				 * [ENOKEY] */
	SIG_E_BAD_SIGNATURE,	/* a trusted certificate's key does not
				 * verify it: wrong digest or forged
				 * [EKEYREJECTED] */
	SIG_E_CRYPTO,		/* OpenSSL failed otherwise */
};

/* One line of text for a negative return value of this library (its own
 * codes, lib/merkle's and -errno). */
const char *sig_strerror(int err);

/*
 * What a certificate says that the kernel ignores but a user should hear
 * of (SIG_CERT_*), and how to name it in messages.
 */
enum {
	SIG_CERT_EXPIRED = 1 << 0,	/* notAfter is in the past */
	SIG_CERT_NOT_YET_VALID = 1 << 1, /* notBefore is in the future */
	SIG_CERT_USAGE = 1 << 2,	/* keyUsage without digitalSignature, or
					 * extendedKeyUsage without codeSigning
					 * (or anyExtendedKeyUsage) */
};

struct sig_cert_info {
	char subject[SIG_TEXT_SIZE];	/* RFC 2253 */
	char not_before[SIG_TEXT_SIZE];	/* as OpenSSL prints ASN1_TIME */
	char not_after[SIG_TEXT_SIZE];
	unsigned flags;			/* SIG_CERT_*, as of the time loaded */
};

/* The trusted certificates: vublk's ".fs-verity" keyring. */
struct sig_trust;

int sig_trust_new(struct sig_trust **out);
void sig_trust_free(struct sig_trust *t);

/*
 * Add one X.509 certificate, PEM or DER (what `keyctl padd asymmetric`
 * takes), from buf/len or from the file path; returns its index (0, 1,
 * ...) or an error: SIG_E_NOT_CERT, SIG_E_CERT_EXTRA (a PEM file with a
 * second certificate: give one per --trusted-cert), SIG_E_CERT_KEY_TYPE,
 * SIG_E_FILE_TOO_LARGE, -errno.  Dates and key usage are not checked.
 */
int sig_trust_add(struct sig_trust *t, const void *buf, size_t len);
int sig_trust_add_file(struct sig_trust *t, const char *path);
size_t sig_trust_count(const struct sig_trust *t);
/* What certificate i says (i < sig_trust_count()). */
const struct sig_cert_info *sig_trust_info(const struct sig_trust *t,
					   size_t i);

/* What sig_verify() found. */
struct sig_result {
	int signer;			/* index of the trusted certificate
					 * that verified it, or -1 */
	char detail[SIG_TEXT_SIZE];	/* after a failure: which signer,
					 * algorithm or attribute, or "" */
};

/*
 * Check the builtin signature sig (sig_len bytes) of the file digest
 * (hash_alg, digest) against the trusted certificates, as described
 * above.  Returns 0 (res->signer set) or a SIG_E_* code of the
 * "signature" group, MERKLE_E_BAD_ALG or -ENOMEM (res->detail set when
 * there is more to say).  Bytes after the DER object are ignored, as the
 * kernel's ASN.1 decoder ignores them.
 */
int sig_verify(const struct sig_trust *t, unsigned hash_alg,
	       const uint8_t *digest, const void *sig, size_t sig_len,
	       struct sig_result *res);

/* The same over any signed content (content_len bytes): sig_verify() is
 * this over the formatted digest; a dm-verity root hash signature, over
 * the hex root hash. */
int sig_verify_content(const struct sig_trust *t, const void *content,
		       size_t content_len, const void *sig, size_t sig_len,
		       struct sig_result *res);

/*
 * Sign the file digest (hash_alg, digest) with the PEM private key in
 * key_path and the PEM certificate in cert_path (fsverity-utils: the key
 * file when cert_path is NULL), as `fsverity sign` does.  On success
 * *sig is malloc'd (free() it) and *sig_len <= SIG_MAX_SIZE.  Errors:
 * -errno reading a file, SIG_E_NOT_KEY, SIG_E_NOT_CERT,
 * SIG_E_KEY_MISMATCH, SIG_E_TOO_LARGE, SIG_E_CRYPTO, MERKLE_E_BAD_ALG.
 * An encrypted key asks for its pass phrase on the terminal, as
 * fsverity-utils does.
 */
int sig_sign(unsigned hash_alg, const uint8_t *digest, const char *key_path,
	     const char *cert_path, uint8_t **sig, size_t *sig_len);

/*
 * A signature file (--signature): at most SIG_MAX_SIZE bytes, else
 * SIG_E_TOO_LARGE; none is SIG_E_EMPTY.  *buf is malloc'd.
 */
int sig_read_file(const char *path, uint8_t **buf, size_t *len);

/*
 * What the command line asked for (vublk add -t verity, vublk-verity
 * verify): --trusted-cert (trust; NULL or empty: none), --signature
 * (given, given_len; NULL: none) and --require-signature.  Zeroed is
 * "nothing asked"; the two functions below fill it from the options'
 * files and sig_policy_release() frees what they read.
 */
struct sig_policy {
	struct sig_trust *trust;
	uint8_t *given;
	size_t given_len;
	bool require;
	/* The option that gives a signature, for messages: NULL is
	 * "--signature" (dm-verity's is "--root-hash-signature"). */
	const char *given_option;
};

/* --trusted-cert=path: sig_trust_add_file() into p->trust (made on first
 * use); returns the certificate's index or an error as it does. */
int sig_policy_add_cert(struct sig_policy *p, const char *path);
/* --signature=path: sig_read_file() into p->given (the caller refuses a
 * second one). */
int sig_policy_read_signature(struct sig_policy *p, const char *path);
void sig_policy_release(struct sig_policy *p);

/* How an image that sig_check() accepted stands. */
enum sig_status {
	SIG_STATUS_VERIFIED,	/* its signature verified (res->signer) */
	SIG_STATUS_UNSIGNED,	/* no signature; none required */
	SIG_STATUS_UNCHECKED,	/* it carries one, but no --trusted-cert */
};

/*
 * Apply the policy to an image whose file digest is (hash_alg, digest)
 * and whose descriptor carries embedded (embedded_len bytes; 0: none):
 * the given signature is checked if there is one, else the embedded one,
 * as the kernel checks the signature stored with the descriptor.  No
 * signature at all is SIG_E_REQUIRED when required, else
 * SIG_STATUS_UNSIGNED.  A signature with no trusted certificate to check
 * it against is SIG_E_NO_TRUST when given or required, else (embedded)
 * SIG_STATUS_UNCHECKED.  Returns the status (>= 0) or an error as
 * sig_verify().
 */
int sig_check(const struct sig_policy *p, unsigned hash_alg,
	      const uint8_t *digest, const uint8_t *embedded,
	      size_t embedded_len, struct sig_result *res);

/* The same for any signed content (sig_verify_content()), such as a
 * dm-verity root hash, which has nothing embedded. */
int sig_check_content(const struct sig_policy *p, const void *content,
		      size_t content_len, const uint8_t *embedded,
		      size_t embedded_len, struct sig_result *res);

/* How the caller should show sig_explain()'s line. */
enum sig_note {
	SIG_NOTE_NONE,		/* nothing to say */
	SIG_NOTE_INFO,		/* verified */
	SIG_NOTE_WARNING,	/* accepted, but the user should know why */
	SIG_NOTE_ERROR,		/* refused */
};

/*
 * One line (no newline, no program prefix) about sig_check()'s outcome
 * ret under policy p: which signature (the --signature one or the
 * embedded one), what was found and, for a refusal, which check failed
 * and what the kernel answers; for an accepted image what the kernel
 * would not have checked either (an expired signer) or what the options
 * did not check (an unsigned image with --trusted-cert, an embedded
 * signature without it).  Returns how to show it.
 */
enum sig_note sig_explain(int ret, const struct sig_policy *p,
			  const struct sig_result *res, char *buf,
			  size_t len);

#endif /* VUBLK_SIG_H */
