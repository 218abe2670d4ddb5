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
 * the caller says so.  sig_explain() words every outcome once, for the
 * daemon and the tool alike.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sig_private.h"

int sig_policy_add_cert(struct sig_policy *p, const char *path)
{
	int err = p->trust ? 0 : sig_trust_new(&p->trust);

	return err ? err : sig_trust_add_file(p->trust, path);
}

int sig_policy_read_signature(struct sig_policy *p, const char *path)
{
	return sig_read_file(path, &p->given, &p->given_len);
}

void sig_policy_release(struct sig_policy *p)
{
	sig_trust_free(p->trust);
	free(p->given);
	p->trust = NULL;
	p->given = NULL;
	p->given_len = 0;
}

int sig_check(const struct sig_policy *p, unsigned hash_alg,
	      const uint8_t *digest, const uint8_t *embedded,
	      size_t embedded_len, struct sig_result *res)
{
	uint8_t formatted[SIG_FORMATTED_MAX];
	int len = sig_formatted_digest(hash_alg, digest, formatted, res);

	return len < 0 ? len : sig_check_content(p, formatted, (size_t)len,
						 embedded, embedded_len, res);
}

int sig_check_content(const struct sig_policy *p, const void *content,
		      size_t content_len, const uint8_t *embedded,
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
	err = sig_verify_content(p->trust, content, content_len, sig, len,
				 res);
	return err ? err : SIG_STATUS_VERIFIED;
}

/* What the kernel ignores about the certificate that signed. */
static void signer_note(const struct sig_cert_info *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s",
		 c->flags & SIG_CERT_EXPIRED ? ", which expired on " : "",
		 c->flags & SIG_CERT_EXPIRED ? c->not_after : "",
		 c->flags & SIG_CERT_NOT_YET_VALID ? ", which is valid only from " : "",
		 c->flags & SIG_CERT_NOT_YET_VALID ? c->not_before : "",
		 c->flags & SIG_CERT_USAGE ? ", whose key usage does not include signing" : "");
}

static enum sig_note explain_verified(const char *which,
				      const struct sig_policy *p,
				      const struct sig_result *res, char *buf,
				      size_t len)
{
	const struct sig_cert_info *c = sig_trust_info(p->trust,
						       (size_t)res->signer);
	char note[3 * SIG_TEXT_SIZE];

	signer_note(c, note, sizeof(note));
	snprintf(buf, len, "%s verifies: signed by '%s'%s%s", which,
		 c->subject, note,
		 c->flags ? ": accepted, as the kernel accepts it (fs-verity checks neither certificate dates nor key usage)" :
			    "");
	return c->flags ? SIG_NOTE_WARNING : SIG_NOTE_INFO;
}

static enum sig_note explain_error(int ret, const char *which,
				   const struct sig_policy *p,
				   const struct sig_result *res, char *buf,
				   size_t len)
{
	if (ret == SIG_E_REQUIRED && p->given_option)
		snprintf(buf, len, "no %s given, and --require-signature was given (dm-verity: CONFIG_DM_VERITY_VERIFY_ROOTHASH_SIG_FORCE refuses it too)",
			 p->given_option);
	else if (ret == SIG_E_REQUIRED)
		snprintf(buf, len, "unsigned, and --require-signature was given (the kernel: EPERM with require_signatures=1): sign it (vublk-verity sign --embed) or give --signature=FILE");
	else if (ret == SIG_E_NO_TRUST)
		snprintf(buf, len, "%s can't be checked: no --trusted-cert given%s",
			 which, p->require && !p->given ?
				" (--require-signature needs one)" : "");
	else
		snprintf(buf, len, "%s is refused: %s%s%s", which,
			 sig_strerror(ret), res->detail[0] ? ": " : "",
			 res->detail);
	return SIG_NOTE_ERROR;
}

enum sig_note sig_explain(int ret, const struct sig_policy *p,
			  const struct sig_result *res, char *buf,
			  size_t len)
{
	char which[64] = "the embedded signature";

	if (p->given)
		snprintf(which, sizeof(which), "the %s file",
			 p->given_option ? p->given_option : "--signature");

	buf[0] = '\0';
	if (ret < 0)
		return explain_error(ret, which, p, res, buf, len);
	switch (ret) {
	case SIG_STATUS_VERIFIED:
		return explain_verified(which, p, res, buf, len);
	case SIG_STATUS_UNCHECKED:
		snprintf(buf, len, "it carries a signature, which is not checked: no --trusted-cert given");
		return SIG_NOTE_WARNING;
	default:	/* SIG_STATUS_UNSIGNED */
		if (!sig_trust_count(p->trust))
			return SIG_NOTE_NONE;
		snprintf(buf, len, "unsigned, so --trusted-cert checks nothing: add --require-signature to refuse unsigned images");
		return SIG_NOTE_WARNING;
	}
}
