// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_trust.c - why the verity target may trust its image, checked in
 * init before any device exists: the file digest against --digest, and
 * the builtin signature against --trusted-cert (lib/sig), as the kernel,
 * opening a verity file, computes its file digest (fs/verity/open.c:
 * fsverity_create_info()) and checks the signature stored with its
 * descriptor against the .fs-verity keyring (fs/verity/signature.c:
 * fsverity_verify_signature()).  Given together, both must hold.
 *
 * Certificate and signature files are read when the option is parsed:
 * that runs in the caller's directory, where a relative path means what
 * the user meant, while init runs in the detached server, in /.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verity.h"

/* --digest=ALG:HEX, the form `fsverity digest` and `vublk-verity format`
 * print; lib/merkle parses it, as for `vublk-verity verify --digest`. */
int verity_parse_digest(struct verity_tgt *vt, const char *arg)
{
	int err;

	/* The image is trusted by this value: two, one perhaps a mistake
	 * in a script, must not leave it to the order which one counts
	 * (vublk-verity verify refuses --digest twice too). */
	if (vt->have_digest) {
		vublk_error("--digest given twice: give the one digest the image must have");
		return -EINVAL;
	}
	err = merkle_parse_digest(arg, &vt->digest_alg, vt->digest);
	if (err) {
		vublk_error("bad --digest value '%s': %s (give the digest that vublk-verity format printed for the image)",
			    arg, merkle_strerror(err));
		return -EINVAL;
	}
	vt->have_digest = true;
	return 0;
}

/* --trusted-cert=FILE (repeatable): one X.509 certificate, PEM or DER. */
int verity_add_trusted_cert(struct verity_tgt *vt, const char *arg)
{
	int err = sig_policy_add_cert(&vt->sig, arg);

	if (err >= 0)
		return 0;
	vublk_error("bad --trusted-cert value '%s': %s (give an X.509 certificate, PEM or DER, the one whose key signed the image)",
		    arg, sig_strerror(err));
	return -EINVAL;
}

/* --signature=FILE: a detached signature, checked instead of the one
 * embedded in the image. */
/* --signature, or dm-verity's --root-hash-signature (option). */
int verity_read_signature(struct verity_tgt *vt, const char *option,
			  const char *arg)
{
	bool dmv = !strcmp(option, "--root-hash-signature");
	int err;

	if (vt->sig.given) {
		vublk_error("%s given after %s: give one signature file",
			    option, vt->sig.given_option ?
			    vt->sig.given_option : "--signature");
		return -EINVAL;
	}
	err = sig_policy_read_signature(&vt->sig, arg);
	if (!err) {
		vt->sig.given_option = dmv ? "--root-hash-signature" : NULL;
		return 0;
	}
	vublk_error("bad %s value '%s': %s (give the file that %s)", option,
		    arg, sig_strerror(err), dmv ?
		    "openssl smime -sign -binary -noattr -nocerts -outform der wrote over the root hash's hex text, as for veritysetup --root-hash-signature" :
		    "vublk-verity sign --out or fsverity sign wrote");
	return -EINVAL;
}

static void verity_hex(const uint8_t *bin, unsigned len, char *out)
{
	for (unsigned i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", bin[i]);
	out[2 * len] = '\0';
}

/*
 * --digest pins the image: the file digest (hash of the descriptor, which
 * holds the root hash) must be the one the user trusts, as fs-verity users
 * compare FS_IOC_MEASURE_VERITY's output.
 */
static int verity_check_digest(struct vublk_tgt *t, struct verity_tgt *vt,
			       const uint8_t *got)
{
	unsigned alg = vt->img.params.hash_alg;
	char got_hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	char want_hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];

	if (!vt->have_digest || (vt->digest_alg == alg &&
				 !memcmp(got, vt->digest,
					 merkle_digest_size(alg))))
		return 0;
	verity_hex(got, merkle_digest_size(alg), got_hex);
	verity_hex(vt->digest, merkle_digest_size(vt->digest_alg), want_hex);
	vublk_error("verity image %s has file digest %s:%s, not the --digest %s:%s: refusing it (the image changed since it was sealed, or the digest belongs to another image)",
		    t->backing_file, merkle_hash_alg_name(alg), got_hex,
		    merkle_hash_alg_name(vt->digest_alg), want_hex);
	return -EPERM;
}

/*
 * What sig_check() or sig_check_content() answered (ret, res) under the
 * options: one line, and the status kept for the report.
 */
static int verity_signature_verdict(struct vublk_tgt *t, struct verity_tgt *vt,
				    int ret, const struct sig_result *res)
{
	char line[1024];

	switch (sig_explain(ret, &vt->sig, res, line, sizeof(line))) {
	case SIG_NOTE_ERROR:
		vublk_error("verity image %s: %s", t->backing_file, line);
		return ret == SIG_E_NO_TRUST ? -EINVAL : -EPERM;
	case SIG_NOTE_WARNING:
		vublk_error("warning: verity image %s: %s", t->backing_file,
			    line);
		break;
	case SIG_NOTE_INFO:
		vublk_info("verity image %s: %s", t->backing_file, line);
		break;
	default:
		break;
	}
	vt->sig_status = ret;
	return 0;
}

/* fs-verity's builtin signature, of the file digest. */
static int verity_check_signature(struct vublk_tgt *t, struct verity_tgt *vt,
				  const uint8_t *digest)
{
	struct sig_result res;
	int ret = sig_check(&vt->sig, vt->img.params.hash_alg, digest,
			    vt->img.desc + MERKLE_DESCRIPTOR_SIZE,
			    vt->img.sig_size, &res);

	return verity_signature_verdict(t, vt, ret, &res);
}

/* dm-verity's root hash signature, of the root hash as hex text. */
static int verity_check_root_hash_signature(struct vublk_tgt *t,
					    struct verity_tgt *vt,
					    const char *hex)
{
	struct sig_result res;
	int ret;

	vt->sig.given_option = "--root-hash-signature";
	ret = sig_check_content(&vt->sig, hex, strlen(hex), NULL, 0, &res);
	return verity_signature_verdict(t, vt, ret, &res);
}

int verity_check_trust(struct vublk_tgt *t, struct verity_tgt *vt)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	char hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	unsigned alg = vt->img.params.hash_alg;
	int err;

	/* dm-verity: the --root-hash given is the anchor, as in its table
	 * (the tree is checked against it as it is read), and what a
	 * --root-hash-signature signs, as lowercase hex text. */
	if (vt->dmv.on) {
		verity_hex(vt->img.root_hash, merkle_digest_size(alg), hex);
		return verity_check_root_hash_signature(t, vt, hex);
	}
	err = merkle_descriptor_digest((const struct merkle_descriptor *)
				       vt->img.desc, digest);
	if (err) {
		vublk_error("cannot compute the file digest of %s: %s",
			    t->backing_file, merkle_strerror(err));
		return -EINVAL;
	}
	err = verity_check_digest(t, vt, digest);
	if (!err)
		err = verity_check_signature(t, vt, digest);
	if (err || vt->have_digest || vt->sig_status == SIG_STATUS_VERIFIED)
		return err;
	/* Neither pins it: whoever wrote it is trusted.  Say so. */
	verity_hex(digest, merkle_digest_size(alg), hex);
	vublk_error("warning: no --digest given for %s: only its self-consistency is checked, and whoever can write it can rewrite data, tree and descriptor together (pin it with --digest=%s:%s, or sign it and give --trusted-cert)",
		    t->backing_file, merkle_hash_alg_name(alg), hex);
	return 0;
}

const char *verity_signature_status(const struct verity_tgt *vt)
{
	switch (vt->sig_status) {
	case SIG_STATUS_VERIFIED:
		return "verified";
	case SIG_STATUS_UNCHECKED:
		return "unchecked";
	default:
		return "none";
	}
}

void verity_trust_release(struct verity_tgt *vt)
{
	sig_policy_release(&vt->sig);
}
