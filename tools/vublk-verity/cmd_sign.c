// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_sign.c - `vublk-verity sign`: an fs-verity builtin signature of a
 * sealed image's file digest, the bytes fsverity-utils'
 * programs/cmd_sign.c writes for the image's data (lib/sig: sig_sign()),
 * written to a file (--out, what `fsverity enable --signature=` and
 * `vublk add --signature=` take) and/or stored in the image after the
 * descriptor (--embed), where the kernel keeps the signature given to
 * FS_IOC_ENABLE_VERITY (lib/f2fslayout: f2fslayout_write_signature()).
 *
 * The signature is made in memory before anything is written.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "f2fslayout.h"
#include "sig.h"
#include "vublk_verity.h"

enum {
	OPT_KEY = VV_OPT_SALT + 1,
	OPT_CERT,
	OPT_OUT,
	OPT_EMBED,
};

static const struct option sign_longopts[] = {
	{ "key",	required_argument, NULL, OPT_KEY },
	{ "cert",	required_argument, NULL, OPT_CERT },
	{ "out",	required_argument, NULL, OPT_OUT },
	{ "embed",	no_argument,	   NULL, OPT_EMBED },
	{ NULL, 0, NULL, 0 }
};

struct sign_options {
	const char *key;
	const char *cert;	/* NULL: the key file, as fsverity sign */
	const char *out;
	bool embed;
};

/* A vv_option_fn: --key, --cert and --out once each, --embed. */
static bool parse_sign_option(int c, const char *arg, void *ctx)
{
	struct sign_options *o = ctx;
	const char **name = c == OPT_KEY ? &o->key :
			    c == OPT_CERT ? &o->cert : &o->out;

	if (c == OPT_EMBED) {
		o->embed = true;
		return true;
	}
	if (!vv_option_once(*name != NULL,
			    c == OPT_KEY ? "--key" :
			    c == OPT_CERT ? "--cert" : "--out"))
		return false;
	*name = arg;
	return true;
}

/* Say which file is unreadable before OpenSSL can only say "failed"
 * (or, of a directory, that it is not a PEM file). */
static bool readable(const char *name)
{
	struct vv_file f;
	struct stat st;
	bool dir;

	if (!vv_open(&f, name, O_RDONLY, 0))
		return false;
	dir = fstat(f.fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (dir)
		vv_error("can't read '%s': it is a directory: give a PEM file",
			 name);
	return vv_close(&f) && !dir;
}

/* One line for a failed sig_sign(), naming the file at fault. */
static void report_sign_error(const struct sign_options *o, int err,
			      const char *cert)
{
	switch (err) {
	case SIG_E_NOT_KEY:
		vv_error("'%s' is not a PEM private key (PKCS#8 or traditional): give the key the certificate '%s' was made for",
			 o->key, cert);
		break;
	case SIG_E_NOT_CERT:
		vv_error("'%s' is not a PEM X.509 certificate: give the certificate of the key with --cert",
			 cert);
		break;
	case SIG_E_KEY_MISMATCH:
		vv_error("'%s' is not the private key of the certificate '%s': give the matching pair",
			 o->key, cert);
		break;
	default:
		vv_error("can't sign with '%s' and '%s': %s", o->key, cert,
			 sig_strerror(err));
	}
}

/* Store sig in the image open on fd, after its descriptor. */
static bool embed_signature(const char *name, int fd,
			    const struct f2fslayout_image *img,
			    const uint8_t *sig, size_t len)
{
	int err = f2fslayout_write_signature(fd, img, sig, (uint32_t)len);

	if (err)
		vv_error("can't store the signature in '%s': %s", name,
			 f2fslayout_strerror(err));
	return !err;
}

/* Sign the open image's file digest; write and/or embed the signature. */
static bool sign_digest(const struct sign_options *o, const char *name,
			int fd, const struct f2fslayout_image *img)
{
	const char *cert = o->cert ? o->cert : o->key;
	unsigned alg = img->params.hash_alg;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	uint8_t *sig;
	size_t len;
	bool ok;
	int err;

	err = merkle_descriptor_digest((const void *)img->desc, digest);
	if (err) {
		vv_error("can't hash the descriptor of '%s': %s", name,
			 merkle_strerror(err));
		return false;
	}
	if (!readable(o->key) || !readable(cert))
		return false;
	err = sig_sign(alg, digest, o->key, cert, &sig, &len);
	if (err) {
		report_sign_error(o, err, cert);
		return false;
	}
	ok = (!o->out || vv_write_new_file(o->out, "signature", sig, len)) &&
	     (!o->embed || embed_signature(name, fd, img, sig, len));
	free(sig);
	if (ok)
		vv_print_digest(alg, digest, name);
	return ok;
}

static int sign_image(const struct sign_options *o, const char *name)
{
	struct f2fslayout_image img;
	struct vv_file f;
	bool ok;
	int status;

	if (!vv_output_not_input("--out", o->out, "the image", name) ||
	    !vv_output_not_input("--out", o->out, "--key", o->key) ||
	    !vv_output_not_input("--out", o->out, "--cert", o->cert))
		return VV_EXIT_FAILURE;
	status = vv_open_image(name, o->embed ? O_RDWR : O_RDONLY, &f, &img);
	if (status != VV_EXIT_OK)
		return VV_EXIT_FAILURE;
	ok = sign_digest(o, name, f.fd, &img);
	f2fslayout_image_release(&img);
	ok = vv_close(&f) && ok;
	return ok ? VV_EXIT_OK : VV_EXIT_FAILURE;
}

int vv_cmd_sign(int argc, char *argv[])
{
	struct sign_options o = { 0 };

	if (!vv_parse_options(&argc, &argv, "", sign_longopts, NULL,
			      parse_sign_option, &o))
		return VV_EXIT_USAGE;
	if (argc != 1)
		return vv_usage_error("expected exactly one IMAGE, %d given",
				      argc);
	if (!o.key)
		return vv_usage_error("no --key given: give the PEM private key to sign with");
	if (!o.out && !o.embed)
		return vv_usage_error("nowhere to put the signature: give --out=FILE, --embed, or both");
	return sign_image(&o, argv[0]);
}
