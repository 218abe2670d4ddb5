// SPDX-License-Identifier: GPL-2.0-only
/*
 * check.c - which signature an image is held to, as the kernel decides
 * in fsverity_verify_signature(): the one stored with the descriptor
 * (here, or one given on the command line instead), checked whenever
 * there is one; an unsigned file refused only when signatures are
 * required (fs.verity.require_signatures).
 *
 * One difference, on purpose: the kernel refuses a signed file while its
 * keyring is empty ("fs-verity keyring is empty, rejecting signed
 * file!"), because there builtin signatures are enabled for every file
 * and an empty keyring can only be a mistake; vublk checks signatures
 * only when asked to (--trusted-cert, --signature, --require-signature),
 * so an embedded signature without a certificate is left unchecked and
 * the caller says so.
 */
#include "sig_private.h"

int sig_check(const struct sig_policy *p, unsigned hash_alg,
	      const uint8_t *digest, const uint8_t *embedded,
	      size_t embedded_len, struct sig_result *res)
{
	const uint8_t *sig = p->given ? p->given :
			     embedded_len ? embedded : NULL;
	size_t len = p->given ? p->given_len : embedded_len;
	int err;

	res->signer = -1;
	res->detail[0] = '\0';
	if (!sig)
		return p->require ? SIG_E_REQUIRED : SIG_STATUS_UNSIGNED;
	if (!sig_trust_count(p->trust))
		return p->given || p->require ? SIG_E_NO_TRUST :
		       SIG_STATUS_UNCHECKED;
	err = sig_verify(p->trust, hash_alg, digest, sig, len, res);
	return err ? err : SIG_STATUS_VERIFIED;
}
