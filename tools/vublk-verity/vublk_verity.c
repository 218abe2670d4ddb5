// SPDX-License-Identifier: GPL-2.0-only
/*
 * vublk-verity - build, check and show the fs-verity metadata of vublk
 * images.
 *
 * Laid out like fsverity-utils' programs/fsverity.c: a table of
 * subcommands, each in its own cmd_*.c file, --help/--version handled here
 * for all of them, and the option parsers that several subcommands share.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "jsonout.h"
#include "vublk_verity.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TREE_OPTIONS_USAGE \
"      --hash-alg=ALG      sha256 (default) or sha512\n" \
"      --block-size=N      Merkle tree block size, a power of 2 from 1024\n" \
"                          to 65536 (default 4096)\n" \
"      --salt=HEX          salt, at most 32 bytes (default: none)\n" \
"  -j, --jobs=N            hash with N threads (default: one per CPU)\n"

static const struct vv_command vv_commands[] = {
	{
		.name = "digest",
		.run = vv_cmd_digest,
		.summary = "Compute the fs-verity digest of files, as `fsverity digest` does",
		.usage =
"    vublk-verity digest FILE... [--hash-alg=ALG] [--block-size=N]\n"
"               [--salt=HEX] [--out-merkle-tree=F] [--out-descriptor=F]\n"
"               [--compact] [--for-builtin-sig] [-j N]\n"
TREE_OPTIONS_USAGE
"      --out-merkle-tree=F write the Merkle tree to F (one FILE only)\n"
"      --out-descriptor=F  write the fs-verity descriptor to F (one FILE only)\n"
"      --compact           print only the hex digest\n"
"      --for-builtin-sig   print the \"FSVerity\" formatted digest that\n"
"                          built-in signatures sign\n",
	}, {
		.name = "format",
		.run = vv_cmd_format,
		.summary = "Append a Merkle tree and descriptor to an image, f2fs style",
		.usage =
"    vublk-verity format IMAGE [--data-size=N] [--hash-alg=ALG]\n"
"               [--block-size=N] [--salt=HEX] [-j N] [--force]\n"
"      --data-size=N       bytes of data to protect (default: the whole\n"
"                          image; suffixes K, M, G, T are powers of 1024)\n"
TREE_OPTIONS_USAGE
"      --force             replace existing vublk metadata; the data size\n"
"                          then comes from it unless --data-size is given\n"
"  Bytes [0, data size) are never changed; whatever follows them is\n"
"  replaced by the tree, descriptor and trailer.  Prints the digest.\n",
	}, {
		.name = "verify",
		.run = vv_cmd_verify,
		.summary = "Check every data block of an image against its Merkle tree",
		.usage =
"    vublk-verity verify IMAGE [--digest=ALG:HEX] [--trusted-cert=CERT]...\n"
"               [--signature=FILE] [--require-signature] [-v]\n"
"    vublk-verity verify --format=dm-verity DATA --root-hash=HEX\n"
"               [--hash-device=HASH] [--hash-offset=BYTES] [-v]\n"
"               [--no-superblock [--hash=ALG] [--data-block-size=N]\n"
"               [--hash-block-size=N] [--data-blocks=N] [--salt=HEX]\n"
"               [--hash-type=0|1]]\n"
"      --format=fs-verity|dm-verity\n"
"                          fs-verity (default): IMAGE is a vublk image;\n"
"                          dm-verity: DATA and the hash area that\n"
"                          veritysetup format wrote\n"
"      --digest=ALG:HEX    also require this fs-verity file digest\n"
"      --trusted-cert=CERT check the image's signature against this X.509\n"
"                          certificate (PEM or DER; repeatable), as the\n"
"                          kernel checks it against its .fs-verity keyring\n"
"      --signature=FILE    check this detached signature instead of the one\n"
"                          embedded in IMAGE\n"
"      --require-signature refuse an unsigned image\n"
"  -v, --verbose           list every bad block and print tree statistics\n"
"  dm-verity, with veritysetup's option names and defaults:\n"
"      --root-hash=HEX     the root hash veritysetup format printed\n"
"      --hash-device=HASH  the hash device or file (default: DATA itself,\n"
"                          then --hash-offset is needed)\n"
"      --hash-offset=BYTES where the hash area starts on HASH, a multiple\n"
"                          of 512 (default 0)\n"
"      --no-superblock     the hash area has no superblock: the options\n"
"                          below give what it would (only then)\n"
"      --hash=ALG          sha256 (default), or any other algorithm\n"
"                          veritysetup's OpenSSL takes: sha1, sha224,\n"
"                          sha384, sha512, sha512-224, sha512-256,\n"
"                          sha3-224, sha3-256, sha3-384, sha3-512,\n"
"                          shake128, shake256, keccak-kmac-128,\n"
"                          keccak-kmac-256, blake2b-512, blake2s-256, sm3,\n"
"                          md5, md5-sha1, md4, rmd160, whirlpool, or\n"
"                          another of OpenSSL's names for one\n"
"      --data-block-size=N, --hash-block-size=N\n"
"                          block sizes, each a power of 2 from 512 to\n"
"                          524288 (default 4096)\n"
"      --data-blocks=N     data blocks (default: all of DATA)\n"
"      --salt=HEX          at most 256 bytes; - or none given: no salt\n"
"      --hash-type=0|1     veritysetup's --format: 1 (default), or 0,\n"
"                          Chrome OS's original\n"
"  Exit status: 0 all good, 1 corruption found or signature refused,\n"
"  2 usage or I/O error, or dm-verity parameters that are not usable.\n",
	}, {
		.name = "sign",
		.run = vv_cmd_sign,
		.summary = "Sign an image's digest with a key, as `fsverity sign` does",
		.usage =
"    vublk-verity sign IMAGE --key=KEY.pem [--cert=CERT.pem] [--out=FILE]\n"
"               [--embed]\n"
"      --key=FILE          PEM private key (PKCS#8 or traditional)\n"
"      --cert=FILE         PEM X.509 certificate of that key (default: the\n"
"                          key file, as fsverity sign)\n"
"      --out=FILE          write the signature (detached PKCS#7, DER) to FILE\n"
"      --embed             store it in IMAGE after the descriptor, where the\n"
"                          kernel keeps a builtin signature\n"
"  Signs IMAGE's file digest: the bytes `fsverity sign` writes for its data\n"
"  with the same key and certificate.  Give --out, --embed or both.  Prints\n"
"  the digest.\n",
	}, {
		.name = "f2fs",
		.run = vv_cmd_f2fs,
		.summary = "List or check the fs-verity files inside an f2fs image, unmounted",
		.usage =
"    vublk-verity f2fs list IMAGE [PATH...] [--json]\n"
"    vublk-verity f2fs check IMAGE [PATH...] [-j N] [-v]\n"
"      PATH                a file or directory in the image (default: /)\n"
"      --json              list: one JSON array instead of text\n"
"  -j, --jobs=N            check: N files at a time (default: one per CPU)\n"
"  -v, --verbose           check: list every run of bad blocks\n"
"  list prints \"ALG:HEX PATH\" per verity file, as `fsverity measure`;\n"
"  check prints the same for each file that verifies, and each run of bad\n"
"  blocks (file, byte offsets, tree level) on stderr.  Exit status: 0 all\n"
"  verity files held, 1 a file failed or was skipped, 2 usage error or an\n"
"  image that is not f2fs.\n",
	}, {
		.name = "dump",
		.run = vv_cmd_dump,
		.summary = "Show the metadata of an image: its descriptor and tree levels, or a dm-verity superblock",
		.usage =
"    vublk-verity dump IMAGE [--json]\n"
"    vublk-verity dump --format=dm-verity HASH [--hash-offset=BYTES] [--json]\n"
"      --format=fs-verity|dm-verity\n"
"                          fs-verity (default): IMAGE's descriptor, metadata\n"
"                          location and tree levels; dm-verity: the\n"
"                          superblock veritysetup format wrote on HASH, and\n"
"                          where its tree levels are\n"
"      --hash-offset=BYTES where the superblock is on HASH (default 0)\n"
"      --json              print one JSON object instead of text\n",
	},
};

/* "vublk-verity" or "vublk-verity CMD", the prefix of every error line. */
static char vv_error_prefix[64] = "vublk-verity";
static const struct vv_command *vv_current_command;

static void vv_vmessage(const char *fmt, va_list ap, const char *suffix)
{
	fprintf(stderr, "%s: ", vv_error_prefix);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", suffix);
}

void vv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vv_vmessage(fmt, ap, "");
	va_end(ap);
}

int vv_usage_error(const char *fmt, ...)
{
	char hint[64];
	va_list ap;

	snprintf(hint, sizeof(hint), " (see 'vublk-verity%s%s --help')",
		 vv_current_command ? " " : "",
		 vv_current_command ? vv_current_command->name : "");
	va_start(ap, fmt);
	vv_vmessage(fmt, ap, hint);
	va_end(ap);
	return VV_EXIT_USAGE;
}

static void usage_command(const struct vv_command *cmd, FILE *fp)
{
	fprintf(fp, "%s.\nUsage:\n%s", cmd->summary, cmd->usage);
}

static void usage_all(FILE *fp)
{
	size_t i;

	fputs("Usage:\n", fp);
	for (i = 0; i < ARRAY_SIZE(vv_commands); i++)
		fprintf(fp, "  %s:\n    vublk-verity %s ...  (see 'vublk-verity %s --help')\n",
			vv_commands[i].summary, vv_commands[i].name,
			vv_commands[i].name);
	fputs("  Standard options:\n"
	      "    vublk-verity help [COMMAND]\n"
	      "    vublk-verity --help\n"
	      "    vublk-verity --version\n"
	      "Exit status: 0 success, 1 failure (verify: corruption found),\n"
	      "2 command-line error (verify: also I/O errors).\n", fp);
}

static const struct vv_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vv_commands); i++)
		if (strcmp(name, vv_commands[i].name) == 0)
			return &vv_commands[i];
	return NULL;
}

/*
 * --help and --version anywhere before "--" win over everything else, as
 * in fsverity-utils' handle_common_options(); returns true when handled.
 */
static bool handle_common_options(int argc, char *argv[],
				  const struct vv_command *cmd)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			if (cmd)
				usage_command(cmd, stdout);
			else
				usage_all(stdout);
			return true;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("vublk-verity %s\n", VUBLK_VERSION);
			return true;
		}
	}
	return false;
}

static int run_help(int argc, char *argv[])
{
	const struct vv_command *cmd;

	if (argc < 3) {
		usage_all(stdout);
		return VV_EXIT_OK;
	}
	cmd = find_command(argv[2]);
	if (!cmd)
		return vv_usage_error("no such command: '%s'", argv[2]);
	usage_command(cmd, stdout);
	return VV_EXIT_OK;
}

/*
 * The digests are the output: a full disk or a closed pipe must not look
 * like success (printf() errors are sticky, so checking once suffices).
 */
static int check_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		vv_error("error writing to standard output: %s",
			 strerror(errno));
		return status == VV_EXIT_OK ? VV_EXIT_FAILURE : status;
	}
	return status;
}

int main(int argc, char *argv[])
{
	const struct vv_command *cmd;

	if (argc < 2)
		return vv_usage_error("no command given");
	if (strcmp(argv[1], "help") == 0)
		return check_stdout(run_help(argc, argv));

	cmd = find_command(argv[1]);
	if (handle_common_options(argc, argv, cmd))
		return check_stdout(VV_EXIT_OK);
	if (!cmd)
		return vv_usage_error("unknown command '%s'", argv[1]);

	vv_current_command = cmd;
	snprintf(vv_error_prefix, sizeof(vv_error_prefix), "vublk-verity %s",
		 cmd->name);
	return check_stdout(cmd->run(argc - 1, argv + 1));
}

/* ---- option parsing shared by the subcommands ---- */

/*
 * getopt_long() that reports an unknown option or a missing argument in
 * the one-line format (getopt's own message has no hint); returns -1 at
 * the end, '?' after such an error, else the option's value.
 */
static int getopt_one(int argc, char *argv[], const char *shortopts,
		      const struct option *longopts)
{
	char optstring[16], why[160];
	int before = optind, c;

	/* A leading ':' makes a missing argument return ':', not '?'. */
	snprintf(optstring, sizeof(optstring), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, optstring, longopts, NULL);
	if (c != ':' && c != '?')
		return c;
	cliopt_error_text(why, sizeof(why), c, argv, before, longopts);
	vv_usage_error("%s", why);
	return '?';
}

/* fsverity-utils' defaults: SHA-256, 4096-byte blocks, no salt. */
static void tree_options_init(struct vv_tree_options *o)
{
	memset(o, 0, sizeof(*o));
	o->params.hash_alg = MERKLE_HASH_SHA256;
	o->params.log_blocksize = 12;
}

/*
 * Digits only: strtoull() alone would also take "-1", blanks and "0x10".
 * *end is set to the first character after the digits.
 */
static bool parse_decimal(const char *arg, uint64_t *n, const char **end)
{
	char *stop;
	unsigned long long v;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	v = strtoull(arg, &stop, 10);
	if (errno)
		return false;
	*n = v;
	*end = stop;
	return true;
}

/* "sha256"/"sha512" or the kernel's number, as fsverity-utils takes it. */
static bool parse_hash_alg(const char *arg, unsigned *hash_alg)
{
	int alg = merkle_parse_hash_alg(arg);

	if (alg < 0) {
		vv_usage_error("unknown hash algorithm '%s': use sha256 or sha512",
			       arg);
		return false;
	}
	*hash_alg = (unsigned)alg;
	return true;
}

/*
 * A block size option opt: a power of 2 from 1 << min_log to
 * 1 << max_log, in decimal; its log to *log_blocksize.
 */
static bool parse_block_size_option(const char *opt, const char *arg,
				    unsigned min_log, unsigned max_log,
				    unsigned *log_blocksize)
{
	const char *end;
	uint64_t n;
	unsigned log;

	if (parse_decimal(arg, &n, &end) && *end == '\0') {
		for (log = min_log; log <= max_log; log++) {
			if (n == 1ULL << log) {
				*log_blocksize = log;
				return true;
			}
		}
	}
	vv_usage_error("invalid %s '%s': must be a power of 2 from %u to %u",
		       opt, arg, 1U << min_log, 1U << max_log);
	return false;
}

/* fsverity-utils' --block-size: 1 KiB to 64 KiB. */
static bool parse_block_size(const char *arg, unsigned *log_blocksize)
{
	return parse_block_size_option("--block-size", arg,
				       MERKLE_MIN_LOG_BLOCKSIZE,
				       MERKLE_MAX_LOG_BLOCKSIZE, log_blocksize);
}

/* fsverity-utils' hex2bin(): 2 hex digits per byte, up to max bytes. */
static bool parse_salt_hex(const char *arg, uint8_t *salt, size_t max,
			   unsigned *salt_size)
{
	int len = merkle_parse_hex(arg, salt, max);

	if (len == MERKLE_E_HEX_TOO_LONG) {
		vv_usage_error("invalid --salt '%s': %zu bytes, at most %zu allowed",
			       arg, strlen(arg) / 2, max);
		return false;
	}
	if (len < 0) {
		vv_usage_error("invalid --salt '%s': %s", arg,
			       merkle_strerror(len));
		return false;
	}
	*salt_size = (unsigned)len;
	return true;
}

static bool parse_salt(const char *arg, struct merkle_params *p)
{
	return parse_salt_hex(arg, p->salt, MERKLE_MAX_SALT_SIZE,
			      &p->salt_size);
}

bool vv_parse_jobs(const char *arg, unsigned *threads)
{
	const char *end;
	uint64_t n;

	/* A generous cap: more threads than CPUs only costs memory. */
	if (parse_decimal(arg, &n, &end) && *end == '\0' && n >= 1 &&
	    n <= 1024) {
		*threads = n;
		return true;
	}
	vv_usage_error("invalid --jobs '%s': must be a number from 1 to 1024",
		       arg);
	return false;
}

bool vv_option_once(bool given_before, const char *opt)
{
	if (given_before)
		vv_usage_error("%s given twice: give it once", opt);
	return !given_before;
}

static bool is_tree_option(int opt)
{
	return opt == VV_OPT_HASH_ALG || opt == VV_OPT_BLOCK_SIZE ||
	       opt == VV_OPT_SALT || opt == VV_OPT_JOBS;
}

/* fsverity-utils' parse_tree_param(): each option at most once. */
static bool parse_tree_option(int opt, const char *arg,
			      struct vv_tree_options *o)
{
	struct merkle_params *p = &o->params;
	bool *seen;
	const char *name;

	switch (opt) {
	case VV_OPT_HASH_ALG:
		seen = &o->hash_alg_set;
		name = "--hash-alg";
		break;
	case VV_OPT_BLOCK_SIZE:
		seen = &o->block_size_set;
		name = "--block-size";
		break;
	case VV_OPT_SALT:
		seen = &o->salt_set;
		name = "--salt";
		break;
	default:
		seen = &o->threads_set;
		name = "-j/--jobs";
		break;
	}
	if (!vv_option_once(*seen, name))
		return false;
	*seen = true;

	switch (opt) {
	case VV_OPT_HASH_ALG:
		return parse_hash_alg(arg, &p->hash_alg);
	case VV_OPT_BLOCK_SIZE:
		return parse_block_size(arg, &p->log_blocksize);
	case VV_OPT_SALT:
		return parse_salt(arg, p);
	default:
		return vv_parse_jobs(arg, &o->threads);
	}
}

bool vv_parse_options(int *argc, char **argv[], const char *shortopts,
		      const struct option *longopts,
		      struct vv_tree_options *tree,
		      vv_option_fn parse_option, void *ctx)
{
	char all_shortopts[8];
	bool ok;
	int c;

	snprintf(all_shortopts, sizeof(all_shortopts), "%s%s", shortopts,
		 tree ? "j:" : "");
	if (tree)
		tree_options_init(tree);
	while ((c = getopt_one(*argc, *argv, all_shortopts, longopts)) != -1) {
		/* getopt_one() has already named the bad option. */
		if (c == '?')
			return false;
		if (tree && is_tree_option(c))
			ok = parse_tree_option(c, optarg, tree);
		else
			ok = parse_option(c, optarg, ctx);
		if (!ok)
			return false;
	}
	*argc -= optind;
	*argv += optind;
	return true;
}

static const struct {
	char suffix;
	unsigned shift;
} size_suffixes[] = {
	{ 'K', 10 }, { 'M', 20 }, { 'G', 30 }, { 'T', 40 },
};

static bool apply_size_suffix(const char *suffix, uint64_t *n)
{
	size_t i;

	if (*suffix == '\0')
		return true;
	if (suffix[1] != '\0')
		return false;
	for (i = 0; i < ARRAY_SIZE(size_suffixes); i++) {
		if ((*suffix & ~0x20) != size_suffixes[i].suffix)
			continue;
		if (*n > UINT64_MAX >> size_suffixes[i].shift)
			return false;
		*n <<= size_suffixes[i].shift;
		return true;
	}
	return false;
}

bool vv_parse_size(const char *opt, const char *arg, uint64_t *out)
{
	const char *end;
	uint64_t n;

	if (parse_decimal(arg, &n, &end) && apply_size_suffix(end, &n)) {
		*out = n;
		return true;
	}
	vv_usage_error("invalid %s '%s': expected a number of bytes below 2^64, optionally with a K, M, G or T suffix",
		       opt, arg);
	return false;
}

void vv_print_json_string(const char *s)
{
	jsonout_string(stdout, s, JSONOUT_UTF8);
}

void vv_bin2hex(const uint8_t *bin, size_t bin_len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < bin_len; i++) {
		hex[2 * i] = digits[bin[i] >> 4];
		hex[2 * i + 1] = digits[bin[i] & 0xf];
	}
	hex[2 * bin_len] = '\0';
}

void vv_print_digest(unsigned hash_alg, const uint8_t *digest,
		     const char *name)
{
	char hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];

	vv_bin2hex(digest, merkle_digest_size(hash_alg), hex);
	printf("%s:%s %s\n", merkle_hash_alg_name(hash_alg), hex, name);
}

/* ---- --format and the dm-verity options (verify, dump) ---- */

static const char *const dmv_option_names[] = {
	[VV_OPT_FORMAT - VV_OPT_FORMAT] = "--format",
	[VV_OPT_HASH_DEVICE - VV_OPT_FORMAT] = "--hash-device",
	[VV_OPT_ROOT_HASH - VV_OPT_FORMAT] = "--root-hash",
	[VV_OPT_HASH_OFFSET - VV_OPT_FORMAT] = "--hash-offset",
	[VV_OPT_NO_SUPERBLOCK - VV_OPT_FORMAT] = "--no-superblock",
	[VV_OPT_DMV_HASH - VV_OPT_FORMAT] = "--hash",
	[VV_OPT_DATA_BLOCK_SIZE - VV_OPT_FORMAT] = "--data-block-size",
	[VV_OPT_HASH_BLOCK_SIZE - VV_OPT_FORMAT] = "--hash-block-size",
	[VV_OPT_DATA_BLOCKS - VV_OPT_FORMAT] = "--data-blocks",
	[VV_OPT_DMV_SALT - VV_OPT_FORMAT] = "--salt",
	[VV_OPT_DMV_HASH_TYPE - VV_OPT_FORMAT] = "--hash-type",
};
_Static_assert(ARRAY_SIZE(dmv_option_names) ==
	       VV_OPT_DMV_END - VV_OPT_FORMAT, "a name per dm-verity option");

/* veritysetup's defaults (cryptsetup's DEFAULT_VERITY_*), no salt. */
void vv_dmv_options_init(struct vv_dmv_options *o)
{
	memset(o, 0, sizeof(*o));
	o->cfg.hash_alg = MERKLE_HASH_SHA256;
	o->cfg.log_blocksize = 12;
	o->cfg.log_data_blocksize = 12;
}

bool vv_is_dmv_option(int opt)
{
	return opt >= VV_OPT_FORMAT && opt < VV_OPT_DMV_END;
}

static bool parse_format(const char *arg, enum vv_format *format)
{
	if (strcmp(arg, "fs-verity") == 0) {
		*format = VV_FORMAT_FSVERITY;
		return true;
	}
	if (strcmp(arg, "dm-verity") == 0) {
		*format = VV_FORMAT_DMVERITY;
		return true;
	}
	vv_usage_error("invalid --format '%s': use fs-verity or dm-verity",
		       arg);
	return false;
}

/* The hex root hash; its size is checked once the algorithm is known. */
static bool parse_root_hash(const char *arg, struct vv_dmv_options *o)
{
	int len = merkle_parse_hex(arg, o->root_hash, sizeof(o->root_hash));

	if (len == 0)
		len = MERKLE_E_DIGEST_SIZE;
	if (len < 0) {
		vv_usage_error("invalid --root-hash '%s': %s; give the root hash veritysetup format printed",
			       arg, len == MERKLE_E_DIGEST_SIZE ||
				    len == MERKLE_E_HEX_TOO_LONG ?
			       "not the length of a digest of an algorithm served" :
			       merkle_strerror(len));
		return false;
	}
	o->root_hash_size = (size_t)len;
	return true;
}

static bool parse_hash_offset(const char *arg, uint64_t *offset)
{
	if (!vv_parse_size("--hash-offset", arg, offset))
		return false;
	if (*offset % 512 == 0)
		return true;
	vv_usage_error("invalid --hash-offset '%s': %s", arg,
		       merkle_strerror(MERKLE_E_DMV_HASH_OFFSET));
	return false;
}

/* veritysetup's --hash: the algorithms of lib/merkle, by name. */
static bool parse_dmv_hash(const char *arg, unsigned *hash_alg)
{
	int alg = merkle_dmv_hash_alg_from_name(arg);

	if (alg < 0) {
		vv_usage_error("invalid --hash '%s': %s", arg,
			       merkle_strerror(MERKLE_E_DMV_BAD_ALG));
		return false;
	}
	*hash_alg = (unsigned)alg;
	return true;
}

/* --data-block-size, --hash-block-size: 512 bytes to 512 KiB. */
static bool parse_dmv_block_size(const char *opt, const char *arg,
				 unsigned *log_blocksize)
{
	return parse_block_size_option(opt, arg, MERKLE_DMV_MIN_LOG_BLOCKSIZE,
				       MERKLE_DMV_MAX_LOG_BLOCKSIZE,
				       log_blocksize);
}

static bool parse_data_blocks(const char *arg, uint64_t *blocks)
{
	const char *end;

	if (parse_decimal(arg, blocks, &end) && *end == '\0' && *blocks)
		return true;
	vv_usage_error("invalid --data-blocks '%s': expected a number of blocks from 1 below 2^64",
		       arg);
	return false;
}

/* veritysetup's --salt: hex of up to 256 bytes, or "-" for none. */
static bool parse_dmv_salt(const char *arg, struct merkle_dmv_config *cfg)
{
	if (strcmp(arg, "-") == 0) {
		cfg->salt_size = 0;
		return true;
	}
	return parse_salt_hex(arg, cfg->salt, sizeof(cfg->salt),
			      &cfg->salt_size);
}

/* veritysetup's --format=0|1 (ours is fs-verity|dm-verity): the
 * superblock's hash_type. */
static bool parse_dmv_hash_type(const char *arg, bool *type0)
{
	if (strcmp(arg, "0") == 0 || strcmp(arg, "1") == 0) {
		*type0 = arg[0] == '0';
		return true;
	}
	vv_usage_error("invalid --hash-type '%s': 1 (veritysetup's default) or 0 (Chrome OS's, veritysetup format --format=0)",
		       arg);
	return false;
}

bool vv_parse_dmv_option(int opt, const char *arg, struct vv_dmv_options *o)
{
	const char *name = dmv_option_names[opt - VV_OPT_FORMAT];
	uint32_t bit = 1u << (opt - VV_OPT_FORMAT);

	if (!vv_option_once(o->given & bit, name))
		return false;
	o->given |= bit;
	if (opt != VV_OPT_FORMAT && !o->first_dmv_option)
		o->first_dmv_option = name;
	if (opt >= VV_OPT_DMV_HASH && !o->first_param_option)
		o->first_param_option = name;

	switch (opt) {
	case VV_OPT_FORMAT:
		return parse_format(arg, &o->format);
	case VV_OPT_HASH_DEVICE:
		o->hash_device = arg;
		return true;
	case VV_OPT_ROOT_HASH:
		return parse_root_hash(arg, o);
	case VV_OPT_HASH_OFFSET:
		return parse_hash_offset(arg, &o->cfg.hash_offset);
	case VV_OPT_NO_SUPERBLOCK:
		o->cfg.no_superblock = true;
		return true;
	case VV_OPT_DMV_HASH:
		return parse_dmv_hash(arg, &o->cfg.hash_alg);
	case VV_OPT_DATA_BLOCK_SIZE:
		return parse_dmv_block_size(name, arg,
					    &o->cfg.log_data_blocksize);
	case VV_OPT_HASH_BLOCK_SIZE:
		return parse_dmv_block_size(name, arg, &o->cfg.log_blocksize);
	case VV_OPT_DATA_BLOCKS:
		return parse_data_blocks(arg, &o->cfg.data_blocks);
	case VV_OPT_DMV_HASH_TYPE:
		return parse_dmv_hash_type(arg, &o->cfg.hash_type0);
	default:	/* VV_OPT_DMV_SALT */
		return parse_dmv_salt(arg, &o->cfg);
	}
}

int vv_dmv_options_check(const struct vv_dmv_options *o, bool verify)
{
	if (o->format != VV_FORMAT_DMVERITY) {
		if (o->first_dmv_option)
			return vv_usage_error("%s is for dm-verity images: give --format=dm-verity too",
					      o->first_dmv_option);
		return VV_EXIT_OK;
	}
	if (!o->cfg.no_superblock && o->first_param_option)
		return vv_usage_error("%s is given by the dm-verity superblock: give it only with --no-superblock",
				      o->first_param_option);
	if (!verify)
		return VV_EXIT_OK;
	if (!o->root_hash_size)
		return vv_usage_error("--format=dm-verity needs --root-hash: the root hash veritysetup format printed");
	if (!o->hash_device && !(o->given & 1u << (VV_OPT_HASH_OFFSET -
						  VV_OPT_FORMAT)))
		return vv_usage_error("without --hash-device the hash area is in the data file: give its --hash-offset");
	return VV_EXIT_OK;
}
