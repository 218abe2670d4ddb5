// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verity_dmv - the verity target's --format=dm-verity on images that
 * `veritysetup format` wrote (the oracle: its trees are the kernel's),
 * through daemon/inproc_queue, once per --backend (argv[1]).
 *
 * Each image's reads must return the data; a byte flipped in a data
 * block fails that block only, one in a hash block the blocks under it;
 * a wrong --root-hash fails every read; what cannot be served is refused
 * at init.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verity_test.h"

static char dir[] = "/tmp/vublk-test-dmv-XXXXXX";
static char data_path[300];	/* dir/data: what -f names */
static uint8_t *data;
static uint64_t data_size;

/* Run a shell command; its first "Root hash:" value into root (or ""). */
static int run(const char *cmd, char *root, size_t len)
{
	FILE *f = popen(cmd, "r");
	char line[512];

	if (root)
		root[0] = '\0';
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *v = strstr(line, "Root hash:");

		if (v && root) {
			v += strlen("Root hash:");
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(root, len, "%s", v);
		}
	}
	return pclose(f);
}

/* veritysetup format DATA HASH EXTRA; the root hash. */
static int format(const char *hash, const char *extra, char *root)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "veritysetup format %s %s %s 2>&1", data_path, hash, extra);
	return run(cmd, root, 160) || !root[0] ? -1 : 0;
}

/* Flip byte pos of file path. */
static int flip(const char *path, uint64_t pos)
{
	int fd = open(path, O_RDWR);
	uint8_t b;
	int ok = fd >= 0 && pread(fd, &b, 1, (off_t)pos) == 1;

	b ^= 0xff;
	ok = ok && pwrite(fd, &b, 1, (off_t)pos) == 1;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int copy(const char *from, const char *to)
{
	char cmd[600];

	if ((size_t)snprintf(cmd, sizeof(cmd), "cp %s %s", from, to) >=
	    sizeof(cmd))
		return -1;
	return system(cmd);
}

/*
 * Open DATA with opts (NULL-terminated), read it all block by block
 * and count blocks whose read disagrees: reads of blocks [bad_lo, bad_hi)
 * must fail with EIO, the others return the data.
 */
static void check_reads(const char *what, const char *image,
			const char *const *opts, unsigned bs,
			uint64_t bad_lo, uint64_t bad_hi)
{
	struct vt_dev d;
	unsigned wrong = 0;
	int ret = vt_dev_open(&d, image, opts);

	CHECK(ret == 0, "%s: init: %d", what, ret);
	/* The device's blocks: a superblock may say fewer than the file
	 * has (the kernel sends nothing past the device's end). */
	for (uint64_t b = 0; d.ready && b < d.tgt.dev_size / bs; b++) {
		int res = vt_dev_read(&d, b * bs, bs, 0);
		bool bad = b >= bad_lo && b < bad_hi;

		if (bad)
			wrong += res != -EIO;
		else
			wrong += res != (int)bs ||
				 memcmp(vt_dev_buf(&d, 0), data + b * bs, bs);
	}
	if (d.ready) {
		/* A request over the whole device: one bad block fails it. */
		int res = vt_dev_read(&d, 0, 65536, 0);

		wrong += bad_lo < bad_hi && bad_lo * bs < 65536 ?
			 res != -EIO : res != 65536;
	}
	CHECK(wrong == 0, "%s: %u reads wrong (bad %llu..%llu)", what, wrong,
	      (unsigned long long)bad_lo, (unsigned long long)bad_hi);
	vt_dev_close(&d);
}

/* init must fail, with want (0: any error). */
static void check_refused(const char *what, const char *image,
			  const char *const *opts, int want)
{
	struct vt_dev d;
	int ret = vt_dev_open(&d, image, opts);

	CHECK(ret < 0 && (!want || ret == want), "%s: init gave %d", what,
	      ret);
	vt_dev_close(&d);
}

/* A device on DATA (superblock image in dir/hash) with extra options. */
static int open_tuned(struct vt_dev *d, const char *image, const char *root,
		      const char *extra1, const char *extra2)
{
	char opt_hash[320], opt_root[200];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root,
			       extra1, extra2, NULL };

	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s/hash", dir);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	return vt_dev_open(d, image, opts);
}

/* Read block b: 0 with its bytes in *buf, or the error. */
static int read_block(struct vt_dev *d, uint64_t b, const uint8_t **buf)
{
	int res = vt_dev_read(d, b * 4096, 4096, 0);

	*buf = vt_dev_buf(d, 0);
	return res == 4096 ? 0 : res;
}

/*
 * dm-verity's tuning options (drivers/md/dm-verity-target.c), on a copy
 * of the data whose block 7 and zero block ZERO_BLOCK are changed:
 *  - --on-corruption=log: block 7 reads, with the changed byte, counted;
 *  - --ignore-zero-blocks: the zero block reads as zeroes, counted;
 *    without it, EIO;
 *  - --check-at-most-once: a block read (verified) before it changed on
 *    the storage reads as it is now, one never read fails.
 */
#define ZERO_BLOCK 300
static void test_tuning(const char *root)
{
	char bad[300];
	const uint8_t *buf;
	struct vt_dev d;
	uint8_t zero[4096] = { 0 };
	const uint8_t flipped9 = data[7 * 4096 + 9] ^ 0xff;

	snprintf(bad, sizeof(bad), "%s/data.tuned", dir);
	CHECK(copy(data_path, bad) == 0 && flip(bad, 7 * 4096 + 9) == 0 &&
	      flip(bad, ZERO_BLOCK * 4096 + 100) == 0, "tamper");

	CHECK(open_tuned(&d, bad, root, "on-corruption=log", NULL) == 0,
	      "log: init");
	CHECK(d.ready && read_block(&d, 7, &buf) == 0 &&
	      buf[9] == flipped9 &&
	      !memcmp(buf, data + 7 * 4096, 9), "log: block 7 not served as stored");
	CHECK(d.ready && read_block(&d, 8, &buf) == 0 &&
	      !memcmp(buf, data + 8 * 4096, 4096), "log: block 8");
	CHECK(vt_dev_counter(&d, "corrupt_served") == 1 &&
	      vt_dev_counter(&d, "failures") >= 1, "log: counters %llu %llu",
	      (unsigned long long)vt_dev_counter(&d, "corrupt_served"),
	      (unsigned long long)vt_dev_counter(&d, "failures"));
	vt_dev_close(&d);

	CHECK(open_tuned(&d, bad, root, "ignore-zero-blocks", NULL) == 0,
	      "zero: init");
	CHECK(d.ready && read_block(&d, ZERO_BLOCK, &buf) == 0 &&
	      !memcmp(buf, zero, 4096), "zero: block not read as zeroes");
	CHECK(d.ready && read_block(&d, ZERO_BLOCK + 1, &buf) == 0 &&
	      !memcmp(buf, zero, 4096), "zero: the next zero block");
	CHECK(d.ready && read_block(&d, 7, &buf) == -EIO,
	      "zero: block 7 is not a zero block and must fail");
	CHECK(vt_dev_counter(&d, "zero_blocks") == 1, "zero: zero_blocks %llu",
	      (unsigned long long)vt_dev_counter(&d, "zero_blocks"));
	vt_dev_close(&d);
	CHECK(open_tuned(&d, bad, root, NULL, NULL) == 0 && d.ready &&
	      read_block(&d, ZERO_BLOCK, &buf) == -EIO,
	      "without --ignore-zero-blocks the changed zero block must fail");
	vt_dev_close(&d);

	/* Block 7 and 9 read intact, then changed under the device. */
	CHECK(copy(data_path, bad) == 0, "copy");
	CHECK(open_tuned(&d, bad, root, "check-at-most-once", NULL) == 0,
	      "once: init");
	CHECK(d.ready && read_block(&d, 7, &buf) == 0 &&
	      read_block(&d, 9, &buf) == 0, "once: first reads");
	CHECK(flip(bad, 7 * 4096 + 9) == 0 && flip(bad, 9 * 4096) == 0 &&
	      flip(bad, 12 * 4096) == 0, "once: tamper");
	CHECK(d.ready && read_block(&d, 7, &buf) == 0 &&
	      buf[9] == flipped9,
	      "once: a verified block is not checked again");
	CHECK(d.ready && vt_dev_read(&d, 7 * 4096, 3 * 4096, 0) == 3 * 4096,
	      "once: blocks 7-9 (8 unchanged, unverified till now)");
	CHECK(d.ready && read_block(&d, 12, &buf) == -EIO,
	      "once: a block never verified must fail");
	vt_dev_close(&d);
	CHECK(open_tuned(&d, bad, root, NULL, NULL) == 0 && d.ready &&
	      read_block(&d, 7, &buf) == -EIO,
	      "without --check-at-most-once block 7 must fail");
	vt_dev_close(&d);

	/*
	 * Both options: zero blocks read once, then changed, still read as
	 * zeroes.  dm-verity never marks a block whose expected hash is that
	 * of zeroes verified (verity_verify_io() zeroes it without looking),
	 * so a later read zeroes it again (seen against the kernel in
	 * tests/kernel-tests/verity/09-dm-verity-options).  Blocks 298-305:
	 * two of data, then zero blocks; 300 and 303 are changed.
	 */
	CHECK(copy(data_path, bad) == 0, "copy");
	CHECK(open_tuned(&d, bad, root, "check-at-most-once",
			 "ignore-zero-blocks") == 0, "once+zero: init");
	CHECK(d.ready && read_block(&d, ZERO_BLOCK, &buf) == 0 &&
	      !memcmp(buf, zero, 4096) &&
	      vt_dev_read(&d, (ZERO_BLOCK - 2) * 4096, 8 * 4096, 0) ==
	      8 * 4096, "once+zero: first reads");
	CHECK(flip(bad, ZERO_BLOCK * 4096 + 100) == 0 &&
	      flip(bad, (ZERO_BLOCK + 3) * 4096) == 0, "once+zero: tamper");
	CHECK(d.ready && read_block(&d, ZERO_BLOCK, &buf) == 0 &&
	      !memcmp(buf, zero, 4096),
	      "once+zero: a zero block read before must read as zeroes");
	CHECK(d.ready &&
	      vt_dev_read(&d, (ZERO_BLOCK - 2) * 4096, 8 * 4096, 0) ==
	      8 * 4096 &&
	      !memcmp(vt_dev_buf(&d, 0), data + (ZERO_BLOCK - 2) * 4096,
		      2 * 4096) &&
	      !memcmp((uint8_t *)vt_dev_buf(&d, 0) + 2 * 4096, zero, 4096) &&
	      !memcmp((uint8_t *)vt_dev_buf(&d, 0) + 5 * 4096, zero, 4096),
	      "once+zero: zero blocks inside a request must read as zeroes");
	CHECK(vt_dev_counter(&d, "zero_blocks") == 3,
	      "once+zero: zero_blocks %llu, expected 3",
	      (unsigned long long)vt_dev_counter(&d, "zero_blocks"));
	vt_dev_close(&d);
	unlink(bad);
}

/*
 * --root-hash-signature: a PKCS#7 over the root hash's hex text, made as
 * the kernel's dm-verity documentation makes it (openssl smime -sign
 * -nocerts -noattr -binary), checked against --trusted-cert as dm-verity
 * checks it against its keyring.
 */
static void test_root_hash_signature(const char *root)
{
	char cmd[2048], opt_sig[320], opt_cert[320], opt_other[320];
	char opt_hash[320], opt_root[200], upper[160];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root,
			       opt_sig, opt_cert, NULL, NULL };
	struct vt_dev d;
	int ret;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && for k in good other; do openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.crt -days 30 -subj /CN=vublk-test-$k >/dev/null 2>&1 || exit 1; done && "
		 "printf %%s %s >root.txt && "
		 "openssl smime -sign -nocerts -noattr -binary -in root.txt -inkey good.key -signer good.crt -outform der -out root.sig && "
		 "openssl smime -sign -nocerts -noattr -binary -in root.txt -inkey other.key -signer other.crt -outform der -out other.sig && "
		 "tr a-f A-F <root.txt >upper.txt && "
		 "openssl smime -sign -nocerts -noattr -binary -in upper.txt -inkey good.key -signer good.crt -outform der -out upper.sig",
		 dir, root);
	if (system(cmd)) {
		CHECK(0, "openssl could not make the test signatures");
		return;
	}
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s/hash", dir);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	snprintf(opt_sig, sizeof(opt_sig), "root-hash-signature=%s/root.sig",
		 dir);
	snprintf(opt_cert, sizeof(opt_cert), "trusted-cert=%s/good.crt", dir);
	snprintf(opt_other, sizeof(opt_other), "trusted-cert=%s/other.crt",
		 dir);

	ret = vt_dev_open(&d, data_path, opts);
	CHECK(ret == 0 && d.ready && vt_dev_read(&d, 0, 4096, 0) == 4096,
	      "a good signature: init %d", ret);
	vt_dev_close(&d);
	/* The root hash typed in upper case is the same root hash. */
	snprintf(upper, sizeof(upper), "%s", root);
	for (char *c = upper; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'f' ? *c - 'a' + 'A' : *c);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", upper);
	CHECK(vt_dev_open(&d, data_path, opts) == 0,
	      "an upper-case --root-hash with a good signature");
	vt_dev_close(&d);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);

	/* Signed by another key; over the upper-case text; no certificate;
	 * none with --require-signature. */
	opts[4] = opt_other;
	check_refused("signature by an untrusted key", data_path, opts,
		      -EPERM);
	opts[4] = opt_cert;
	snprintf(opt_sig, sizeof(opt_sig), "root-hash-signature=%s/upper.sig",
		 dir);
	check_refused("signature of the upper-case hex", data_path, opts,
		      -EPERM);
	opts[4] = NULL;
	check_refused("a signature without --trusted-cert", data_path, opts,
		      -EINVAL);
	opts[3] = opt_cert;
	opts[4] = "require-signature";
	check_refused("--require-signature without a signature", data_path,
		      opts, 0);
	/* The other signature file of the wrong format. */
	opts[3] = "signature=/dev/null";
	opts[4] = NULL;
	check_refused("--signature with dm-verity", data_path, opts, 0);
}

/* Write len bytes of v at pos of path. */
static int poke(const char *path, uint64_t pos, const void *v, size_t len)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && pwrite(fd, v, len, (off_t)pos) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * Hostile superblocks (struct merkle_dmv_sb fields, little endian): each
 * refused at init with one line, or, where the fields are valid but lie
 * (a shorter salt, fewer data blocks), served with every read failing.
 */
static void test_hostile_superblocks(const char *root)
{
	static const struct {
		const char *what;
		uint64_t pos;
		uint8_t bytes[8];
		size_t len;
		bool refused;
	} cases[] = {
		{ "version 2", 8, { 2 }, 4, true },
		{ "hash type 0 (Chrome OS's: another tree)", 12, { 0 }, 4,
		  false },
		{ "hash type 7", 12, { 7 }, 4, true },
		{ "algorithm wp512", 32, "wp512", 6, true },
		{ "algorithm sha1 (root hash of the wrong size)", 32, "sha1", 5,
		  true },
		{ "algorithm without NUL", 32, "sha256xx", 8, true },
		{ "data block size 3", 64, { 3 }, 4, true },
		{ "data block size 1 GiB", 64, { 0, 0, 0, 0x40 }, 4, true },
		{ "hash block size 512 (a lie)", 68, { 0, 2 }, 4, false },
		{ "data blocks 0", 72, { 0 }, 8, true },
		{ "data blocks 2^60", 72, { 0, 0, 0, 0, 0, 0, 0, 0x10 }, 8,
		  true },
		{ "data blocks 2^64-1", 72, { 0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff }, 8, true },
		{ "salt size 300", 80, { 0x2c, 0x01 }, 2, true },
		{ "salt size 65535", 80, { 0xff, 0xff }, 2, true },
		{ "signature", 0, "Verity", 6, true },
		{ "salt size 16 (a lie)", 80, { 16 }, 2, false },
		{ "data blocks 100 (a lie)", 72, { 100 }, 8, false },
	};
	char hash[300], bad[300], opt_hash[320], opt_root[200];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root, NULL };

	snprintf(hash, sizeof(hash), "%s/hash", dir);
	snprintf(bad, sizeof(bad), "%s/hash.hostile", dir);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", bad);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[100];

		snprintf(what, sizeof(what), "hostile superblock: %s",
			 cases[i].what);
		if (copy(hash, bad) ||
		    poke(bad, cases[i].pos, cases[i].bytes, cases[i].len)) {
			CHECK(0, "%s: cannot write it", what);
			continue;
		}
		if (cases[i].refused)
			check_refused(what, data_path, opts, -EINVAL);
		else
			check_reads(what, data_path, opts, 4096, 0,
				    cases[i].pos == 72 ? 100 : data_size / 4096);
	}
	/* A hash file that ends inside the superblock, or the tree. */
	CHECK(copy(hash, bad) == 0 && truncate(bad, 300) == 0, "truncate");
	check_refused("hash file of 300 bytes", data_path, opts, -EINVAL);
	CHECK(truncate(bad, 3 * 4096) == 0, "truncate");
	check_refused("hash file ending in the tree", data_path, opts,
		      -EINVAL);
	unlink(bad);
}

/* A superblock image in a separate hash file, 4 KiB blocks. */
static void test_superblock(void)
{
	char hash[300], bad[300], root[160], opt_hash[320], opt_root[200];
	char good_root[160];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root, NULL };
	uint64_t blocks = data_size / 4096;

	snprintf(hash, sizeof(hash), "%s/hash", dir);
	CHECK(format(hash, "", root) == 0, "veritysetup format");
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	check_reads("superblock", data_path, opts, 4096, 0, 0);
	snprintf(good_root, sizeof(good_root), "%s", root);
	test_tuning(good_root);
	test_root_hash_signature(good_root);
	test_hostile_superblocks(good_root);

	/* Data block 7 flipped: block 7 only. */
	snprintf(bad, sizeof(bad), "%s/data.bad", dir);
	CHECK(copy(data_path, bad) == 0 && flip(bad, 7 * 4096 + 9) == 0,
	      "tamper data");
	check_reads("data byte", bad, opts, 4096, 7, 8);
	unlink(bad);
	/* Hash area: superblock block, then level 1 (the top: one block of
	 * 128 hashes of level-0 blocks), then level 0.  A byte in level-0
	 * block 1 fails data blocks 128..255. */
	snprintf(bad, sizeof(bad), "%s/hash.bad", dir);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", bad);
	CHECK(copy(hash, bad) == 0 && flip(bad, 3 * 4096 + 40) == 0,
	      "tamper hash");
	check_reads("level-0 byte", data_path, opts, 4096, 128,
		    256 < blocks ? 256 : blocks);
	CHECK(copy(hash, bad) == 0 && flip(bad, 4096 + 2) == 0, "tamper top");
	check_reads("top-level byte", data_path, opts, 4096, 0, blocks);
	unlink(bad);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);

	/* A wrong root hash: every read fails. */
	root[0] = root[0] == '0' ? '1' : '0';
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	check_reads("wrong root hash", data_path, opts, 4096, 0, blocks);
	/* One of the wrong length, and none. */
	root[10] = '\0';
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	check_refused("short root hash", data_path, opts, -EINVAL);
	opts[2] = NULL;
	check_refused("no root hash", data_path, opts, -EINVAL);
}

/* --no-superblock, 1 KiB blocks, a 100-byte salt, sha512. */
static void test_no_superblock(void)
{
	char hash[300], root[160], opt_hash[320], opt_root[200], salt[210];
	char opt_salt[220], extra[400];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root,
			       "no-superblock", "hash=sha512",
			       "data-block-size=1024", "hash-block-size=1024",
			       opt_salt, NULL };
	const char *with_sb[] = { "format=dm-verity", opt_hash, opt_root,
				  opt_salt, NULL };

	for (int i = 0; i < 100; i++)
		sprintf(salt + 2 * i, "%02x", (i * 37 + 11) & 0xff);
	snprintf(hash, sizeof(hash), "%s/hash.nosb", dir);
	snprintf(extra, sizeof(extra),
		 "--no-superblock --hash=sha512 --data-block-size=1024 --hash-block-size=1024 --salt=%s",
		 salt);
	CHECK(format(hash, extra, root) == 0, "veritysetup format --no-superblock");
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	snprintf(opt_salt, sizeof(opt_salt), "salt=%s", salt);
	check_reads("no superblock", data_path, opts, 1024, 0, 0);
	/* The salt is the image's: another one fails everything. */
	opt_salt[5] ^= 1;
	check_reads("wrong salt", data_path, opts, 1024, 0, data_size / 1024);
	/* With a superblock, the superblock gives the salt. */
	check_refused("--salt with a superblock", data_path, with_sb, -EINVAL);
	/* ... and without --no-superblock, there is none to read. */
	with_sb[3] = NULL;
	check_refused("no superblock in the hash file", data_path, with_sb,
		      -EINVAL);
}

/*
 * SHA-1 (a 20-byte digest in a 32-byte stride), 1 KiB hash blocks under
 * 4 KiB data blocks.  Hash file: superblock in block 0, the top level
 * (one block) at 1024, level 0 (17 blocks of 32 hashes) from 2048: a byte
 * of level-0 block 2 covers data blocks 64..95.
 */
static void test_mixed_sizes(void)
{
	char hash[300], bad[300], root[160], opt_hash[320], opt_root[200];
	const char *opts[] = { "format=dm-verity", opt_hash, opt_root, NULL };

	snprintf(hash, sizeof(hash), "%s/hash.sha1", dir);
	CHECK(format(hash, "--hash=sha1 --data-block-size=4096 --hash-block-size=1024",
		     root) == 0, "veritysetup format sha1");
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	check_reads("sha1, 1 KiB hash blocks", data_path, opts, 4096, 0, 0);
	snprintf(bad, sizeof(bad), "%s/hash.sha1.bad", dir);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", bad);
	CHECK(copy(hash, bad) == 0 && flip(bad, 2048 + 2 * 1024 + 5) == 0,
	      "tamper");
	check_reads("sha1 level-0 byte", data_path, opts, 4096, 64, 96);
	/* A byte of a hash's padding (after its 20 bytes) is hashed too. */
	CHECK(copy(hash, bad) == 0 && flip(bad, 2048 + 2 * 1024 + 32 + 25) == 0,
	      "tamper padding");
	check_reads("sha1 padding byte", data_path, opts, 4096, 64, 96);
	unlink(bad);
}

/*
 * An image veritysetup formats with format_args (and a superblock), read
 * through opts_extra (NULL-terminated, at most 4) as blocks of bs bytes:
 * every read returns the data; with data block bad_block flipped, that
 * block alone fails.
 */
/* The format the device reports (`vublk list --json`, the start line). */
static void check_format_reported(const char *what, const char *image,
				  const char *const *opts, const char *want)
{
	struct vt_dev d;
	char *json;
	char field[80];

	CHECK(vt_dev_open(&d, image, opts) == 0, "%s: init", what);
	json = d.ready ? inproc_tgt_stats(&d.tgt) : NULL;
	snprintf(field, sizeof(field), "\"format\": \"%s\"", want);
	CHECK(json && strstr(json, field), "%s: stats without %s: %s", what,
	      field, json ? json : "(none)");
	free(json);
	vt_dev_close(&d);
}

static void check_variant(const char *what, const char *format_args,
			  const char *const *opts_extra, unsigned bs,
			  uint64_t bad_block)
{
	char hash[300], bad[300], root[160], opt_hash[320], opt_root[200];
	const char *opts[8] = { "format=dm-verity", opt_hash, opt_root };
	char msg[160];

	for (size_t i = 0; i < 4 && opts_extra[i]; i++)
		opts[3 + i] = opts_extra[i];
	snprintf(hash, sizeof(hash), "%s/hash.variant", dir);
	CHECK(format(hash, format_args, root) == 0, "%s: veritysetup format %s",
	      what, format_args);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	check_reads(what, data_path, opts, bs, 0, 0);
	check_format_reported(what, data_path, opts,
			      strstr(format_args, "--format=0") ?
			      "dm-verity hash type 0" : "dm-verity");
	snprintf(bad, sizeof(bad), "%s/data.variant", dir);
	CHECK(copy(data_path, bad) == 0 &&
	      flip(bad, bad_block * bs + bs / 2) == 0, "%s: tamper", what);
	snprintf(msg, sizeof(msg), "%s, data block %llu flipped", what,
		 (unsigned long long)bad_block);
	check_reads(msg, bad, opts, bs, bad_block, bad_block + 1);
	unlink(bad);
	unlink(hash);
}

/*
 * What veritysetup formats beyond the kernel's dm-verity: Whirlpool
 * (OpenSSL's legacy provider); blocks over a page, up to veritysetup's
 * 512 KiB (requests of 64 KiB then read a whole 512 KiB data block
 * through the bounce buffer).  And Chrome OS's hash type 0 (the salt
 * after the block, SHA-1 hashes packed in 20 bytes), from the superblock
 * and from --hash-type=0.
 */
static void test_variants(void)
{
	const char *none[] = { NULL };
	const char *type0[] = { "no-superblock", "hash=sha1", "hash-type=0",
				"salt=0123456789", NULL };

	check_variant("whirlpool", "--hash=whirlpool", none, 4096, 77);
	check_variant("512 KiB data blocks, 128 KiB hash blocks",
		      "--data-block-size=524288 --hash-block-size=131072",
		      none, 524288, 2);
	check_variant("hash type 0", "--format=0 --hash=sha1", none, 4096,
		      200);
	check_variant("hash type 0, no superblock",
		      "--format=0 --hash=sha1 --no-superblock --salt=0123456789",
		      type0, 4096, 300);
}

/* The hash area in the data file, past the data, at --hash-offset. */
static void test_same_file(void)
{
	char img[300], root[160], opt_root[200], opt_off[64], cmd[1024];
	const char *opts[] = { "format=dm-verity", opt_off, opt_root, NULL };
	uint64_t off = data_size + 8192;

	snprintf(img, sizeof(img), "%s/same.img", dir);
	CHECK(copy(data_path, img) == 0, "copy");
	snprintf(cmd, sizeof(cmd),
		 "veritysetup format %s %s --hash-offset=%llu --data-blocks=%llu 2>&1",
		 img, img, (unsigned long long)off,
		 (unsigned long long)(data_size / 4096));
	CHECK(run(cmd, root, sizeof(root)) == 0 && root[0],
	      "veritysetup format --hash-offset");
	snprintf(opt_root, sizeof(opt_root), "root-hash=%s", root);
	snprintf(opt_off, sizeof(opt_off), "hash-offset=%llu",
		 (unsigned long long)off);
	check_reads("hash area in the data file", img, opts, 4096, 0, 0);
	/* An offset inside the data (no superblock: all of the file is
	 * data then), and one not a multiple of 512. */
	{
		const char *over[] = { "format=dm-verity", "hash-offset=4096",
				       opt_root, "no-superblock", NULL };

		check_refused("hash area over the data", img, over, -EINVAL);
	}
	snprintf(opt_off, sizeof(opt_off), "hash-offset=%llu",
		 (unsigned long long)off + 100);
	check_refused("unaligned hash offset", img, opts, -EINVAL);
	/* Neither --hash-device nor --hash-offset. */
	opts[1] = opt_root;
	opts[2] = NULL;
	check_refused("no hash area", img, opts, -EINVAL);
	unlink(img);
}

/* Options that belong to the other format. */
static void test_option_mix(void)
{
	char hash[300], opt_hash[320];
	char opt_digest[80] = "digest=sha256:";
	const char *dmv_digest[] = { "format=dm-verity", opt_hash,
				     "root-hash=00", opt_digest, NULL };

	memset(opt_digest + strlen(opt_digest), '0', 64);
	const char *fsv_salt[] = { "salt=00", NULL };

	snprintf(hash, sizeof(hash), "%s/hash", dir);
	snprintf(opt_hash, sizeof(opt_hash), "hash-device=%s", hash);
	check_refused("--digest with dm-verity", data_path, dmv_digest, 0);
	check_refused("--salt without --format=dm-verity", data_path, fsv_salt,
		      -EINVAL);
}

static int make_data(void)
{
	int fd;

	data_size = 2 * 1024 * 1024 + 64 * 1024;	/* 528 4 KiB blocks */
	data = malloc(data_size);
	if (!data)
		return -1;
	for (uint64_t i = 0; i < data_size; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	/* Zero blocks, for --ignore-zero-blocks. */
	memset(data + ZERO_BLOCK * 4096, 0, 16 * 4096);
	snprintf(data_path, sizeof(data_path), "%s/data", dir);
	fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, data_size) != (ssize_t)data_size) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

int main(int argc, char **argv)
{
	static char backend_opt[32], cmd[300];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (system("veritysetup --version >/dev/null 2>&1")) {
		printf("SKIP: veritysetup is not installed (Debian package cryptsetup-bin)\n");
		return 77;
	}
	snprintf(backend_opt, sizeof(backend_opt), "backend=%s",
		 argc > 1 ? argv[1] : "file");
	vt_backend_opt = backend_opt;
	if (!mkdtemp(dir) || make_data()) {
		printf("FAIL: cannot write the test data in %s\n", dir);
		return 1;
	}
	test_superblock();
	test_no_superblock();
	test_same_file();
	test_mixed_sizes();
	test_variants();
	test_option_mix();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
	free(data);
	printf("%s\n", vt_failures ? "FAILED" : "OK");
	return vt_failures ? 1 : 0;
}
