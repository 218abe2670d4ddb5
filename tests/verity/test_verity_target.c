// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verity_target.c - the verity target's ops against an in-process
 * queue (daemon/inproc_queue) on small sealed images.  Every read is
 * compared with the data the image was made from; tampering is done on
 * copies of the image at offsets found through lib/f2fslayout.
 *
 * Usage: test_verity_target [file|pmem|nbd [OPTION]]: every test runs with
 * that --backend (default file): io_uring reads, copies out of a libpmem2
 * mapping of the image (a regular file here: PAGE granularity), or NBD
 * reads of the image served by an nbdkit of each device's own (and once
 * by qemu-nbd, from a qcow2 copy); and with OPTION (e.g. verify-thread)
 * given to every device.
 *
 * Images:
 *  A: 1 KiB Merkle blocks, 2 MiB + 512 bytes: 3 tree levels, a logical
 *     block of 512 (so unaligned requests take the bounce path) and a
 *     partial last block.
 *  B: 4 KiB blocks, 8 MiB + 12 KiB: 2 levels, 4 KiB-aligned requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "sig.h"
#include "test_pki.h"
#include "verity_test.h"

static char dir[] = "/tmp/vublk-test-verity-XXXXXX";
static struct vt_image img_a, img_b;

static const char *const ra_modes[] = { "off", "completion", "submission" };

static bool vt_read_ok(struct vt_dev *d, const struct vt_image *img,
		       uint64_t off, uint32_t len, unsigned flags)
{
	int res = vt_dev_read(d, off, len, flags);

	return res == (int)len && !memcmp(vt_dev_buf(d, 0), img->data + off,
					  len);
}

/* Requests of every alignment the device allows, each checked. */
static void test_read_all(const struct vt_image *img, const char *mode)
{
	const char *opts[] = { NULL, NULL };
	char ra[32];
	struct vt_dev d;
	uint64_t off, bad = 0, n = 0;
	uint32_t len;

	snprintf(ra, sizeof(ra), "readahead=%s", mode);
	opts[0] = ra;
	CHECK(vt_dev_open(&d, img->path, opts) == 0, "open %s", img->path);
	if (!d.ready)
		return;
	/* Whole device in 128 KiB steps, then odd sizes and offsets. */
	for (off = 0; off < img->data_size; off += len, n++) {
		len = img->data_size - off < 131072 ? img->data_size - off :
						      131072;
		bad += !vt_read_ok(&d, img, off, len, VUBLK_REQ_READAHEAD);
	}
	for (off = 0; off + 12288 <= img->data_size; off += 777 * 512, n++) {
		len = (uint32_t)(512 + (off % 23) * 512);
		if (img->log_bs == 12)
			off &= ~4095ull, len = (len + 4095) & ~4095u;
		bad += !vt_read_ok(&d, img, off, len, 0);
	}
	len = img->log_bs == 12 ? 4096 : 512;
	bad += !vt_read_ok(&d, img, img->data_size - len, len, 0);
	CHECK(bad == 0, "%s, readahead %s: %llu of %llu reads wrong",
	      img->path, mode, (unsigned long long)bad,
	      (unsigned long long)n + 1);
	CHECK(vt_dev_counter(&d, "failures") == 0, "failures counted");
	vt_dev_close(&d);
}

/* Several tags in flight at once, random offsets. */
static void test_parallel(const struct vt_image *img)
{
	struct vt_dev d;
	struct vublk_req req[VT_DEPTH];
	unsigned bs = 1U << (img->log_bs < 12 ? 9 : 12), bad = 0;

	CHECK(vt_dev_open(&d, img->path, NULL) == 0, "open");
	if (!d.ready)
		return;
	srand(7);
	for (int round = 0; round < 8; round++) {
		for (unsigned t = 0; t < VT_DEPTH; t++) {
			uint32_t len = bs * (1 + rand() % 64);
			uint64_t off = (uint64_t)(rand() %
				(int)((img->data_size - len) / bs)) * bs;

			req[t] = (struct vublk_req){ .op = VUBLK_OP_READ,
				.offset = off, .len = len,
				.buf = vt_dev_buf(&d, t) };
			inproc_queue_start(&d.iq, t, &req[t]);
		}
		CHECK(inproc_queue_wait_all(&d.iq) == 0, "wait");
		for (unsigned t = 0; t < VT_DEPTH; t++)
			bad += d.iq.res[t] != (int)req[t].len ||
			       memcmp(req[t].buf, img->data + req[t].offset,
				      req[t].len);
	}
	CHECK(bad == 0, "%u parallel reads wrong", bad);
	CHECK(d.iq.completions[0] == 8, "tag 0 completed %u times, not 8",
	      d.iq.completions[0]);
	vt_dev_close(&d);
}

/*
 * A sequential readahead pass with every tag in flight, as the kernel's
 * readahead issues it: requests that need a hash block another one is
 * already reading wait for that read (like a locked page) instead of
 * reading it again, so no hash block is read twice with a large cache.
 */
static void test_parallel_seq(const struct vt_image *img, const char *mode)
{
	char ra[32];
	const char *opts[] = { ra, NULL };
	uint64_t tree_blocks = img->meta.geometry.tree_size >> img->log_bs;
	uint64_t off = 0, read;
	struct vublk_req req[VT_DEPTH];
	struct vt_dev d;
	unsigned bad = 0, tag;
	int res;

	snprintf(ra, sizeof(ra), "readahead=%s", mode);
	CHECK(vt_dev_open(&d, img->path, opts) == 0, "open");
	if (!d.ready)
		return;
	for (tag = 0; tag < VT_DEPTH; tag++)
		req[tag].len = 0;
	for (;;) {
		for (tag = 0; tag < VT_DEPTH && off < img->data_size; tag++) {
			if (d.iq.in_flight == VT_DEPTH)
				break;
			req[tag] = (struct vublk_req){ .op = VUBLK_OP_READ,
				.flags = VUBLK_REQ_READAHEAD, .offset = off,
				.len = img->data_size - off < 65536 ?
				       img->data_size - off : 65536,
				.buf = vt_dev_buf(&d, tag) };
			off += req[tag].len;
			inproc_queue_start(&d.iq, tag, &req[tag]);
		}
		if (!d.iq.in_flight)
			break;
		if (inproc_queue_wait_all(&d.iq)) {
			CHECK(0, "parallel sequential, %s: requests hang", mode);
			return;	/* leaked: the queue is stuck */
		}
		while (inproc_queue_pop(&d.iq, &tag, &res))
			bad += res != (int)req[tag].len ||
			       memcmp(req[tag].buf, img->data + req[tag].offset,
				      req[tag].len);
	}
	read = vt_dev_counter(&d, "tree_blocks_read");
	CHECK(bad == 0, "parallel sequential, %s: %u reads wrong", mode, bad);
	CHECK(read <= tree_blocks, "parallel sequential, %s: %llu hash blocks read, the tree has %llu",
	      mode, (unsigned long long)read, (unsigned long long)tree_blocks);
	vt_dev_close(&d);
}

/*
 * Two waves of large reads, the second started while the first may still
 * be hashed: with a verify thread, the first wave goes to the thread and
 * the second is verified on the queue meanwhile (verity_queue_batch_end()).
 * One data block of the second wave is damaged: its request alone fails,
 * and no verdict crosses from one batch to the other.
 */
static void test_overlapping_batches(const struct vt_image *img)
{
	const uint32_t len = 256 * 1024;
	const unsigned half = VT_DEPTH / 2, bad_tag = half + 3;
	uint64_t bad_block = (uint64_t)bad_tag * len / (1U << img->log_bs) + 5;
	struct vublk_req req[VT_DEPTH];
	struct vt_image copy;
	struct vt_dev d;
	unsigned tag, wrong = 0;
	int res;

	if (img->data_size < (uint64_t)VT_DEPTH * len)
		return;
	CHECK(vt_image_copy(img, &copy, dir, "overlap") == 0, "copy");
	CHECK(vt_image_flip(&copy, bad_block << img->log_bs) == 0, "flip");
	copy.data = img->data;
	CHECK(vt_dev_open(&d, copy.path, NULL) == 0, "open");
	for (unsigned wave = 0; d.ready && wave < 2; wave++) {
		for (tag = wave * half; tag < (wave + 1) * half; tag++) {
			req[tag] = (struct vublk_req){ .op = VUBLK_OP_READ,
				.flags = VUBLK_REQ_READAHEAD,
				.offset = (uint64_t)tag * len, .len = len,
				.buf = vt_dev_buf(&d, tag) };
			inproc_queue_start(&d.iq, tag, &req[tag]);
		}
		/* The first wave's data in, and its batch on its way. */
		if (wave == 0)
			CHECK(inproc_queue_reap(&d.iq) == 0, "reap");
	}
	CHECK(!d.ready || inproc_queue_wait_all(&d.iq) == 0, "wait");
	while (d.ready && inproc_queue_pop(&d.iq, &tag, &res)) {
		wrong += tag == bad_tag ? res != -EIO :
			res != (int)len || memcmp(req[tag].buf,
					   img->data + req[tag].offset, len);
	}
	CHECK(wrong == 0, "overlapping batches: %u reads wrong", wrong);
	vt_dev_close(&d);
	copy.data = NULL;
	vt_image_destroy(&copy);
}

/*
 * Damage one byte at image offset pos of a copy; the data blocks in
 * [bad_lo, bad_hi) must now fail with -EIO and all others read right.
 * Checked with one read per 16 KiB and one read per bad range edge.
 */
static void test_tamper(const struct vt_image *img, const char *what,
			uint64_t pos, uint64_t bad_lo, uint64_t bad_hi)
{
	struct vt_image copy;
	struct vt_dev d;
	unsigned bs = 1U << img->log_bs, wrong = 0;
	uint64_t nblocks = (img->data_size + bs - 1) / bs;

	CHECK(vt_image_copy(img, &copy, dir, "tampered") == 0, "copy");
	CHECK(vt_image_flip(&copy, pos) == 0, "flip");
	copy.data = img->data;
	CHECK(vt_dev_open(&d, copy.path, NULL) == 0, "open tampered");
	for (uint64_t b = 0; d.ready && b < nblocks; b += 16384 / bs) {
		uint64_t off = b * bs;
		uint32_t len = img->data_size - off < bs ? img->data_size - off : bs;
		bool in_bad = b >= bad_lo && b < bad_hi;
		int res = vt_dev_read(&d, off, len, 0);

		wrong += in_bad ? res != -EIO : !vt_read_ok(&d, img, off, len, 0);
	}
	if (d.ready) {
		/* The edges of the bad range, and a request straddling it. */
		wrong += vt_dev_read(&d, bad_lo * bs, bs, 0) != -EIO;
		wrong += vt_dev_read(&d, (bad_hi - 1) * bs, bs, 0) != -EIO;
		if (bad_lo > 0)
			wrong += vt_dev_read(&d, (bad_lo - 1) * bs, 2 * bs,
					     0) != -EIO;
		if (bad_hi < nblocks && (bad_hi + 1) * bs <= img->data_size)
			wrong += !vt_read_ok(&d, img, bad_hi * bs, bs, 0);
		CHECK(vt_dev_counter(&d, "failures") > 0, "no failure counted");
	}
	CHECK(wrong == 0, "%s: %u reads wrong (bad blocks %llu..%llu)", what,
	      wrong, (unsigned long long)bad_lo, (unsigned long long)bad_hi);
	vt_dev_close(&d);
	copy.data = NULL;
	vt_image_destroy(&copy);
}

static void test_tampering(const struct vt_image *img)
{
	const struct merkle_geometry *g = &img->meta.geometry;
	uint64_t per_l0 = g->hashes_per_block;
	uint64_t per_l1 = per_l0 * g->hashes_per_block;
	uint64_t nblocks = g->data_blocks;

	/* A data byte in block 100: only block 100. */
	test_tamper(img, "data byte", (100ull << img->log_bs) + 33, 100, 101);
	/* A hash in level-0 block 1: the blocks it covers. */
	test_tamper(img, "level-0 byte", vt_tree_block_pos(img,
		    g->level_start[0] + 1) + 5, per_l0,
		    2 * per_l0 < nblocks ? 2 * per_l0 : nblocks);
	/* Level 1 block 1 (image A has 3 levels). */
	if (g->num_levels >= 3)
		test_tamper(img, "level-1 byte", vt_tree_block_pos(img,
			    g->level_start[1] + 1) + 7, per_l1,
			    2 * per_l1 < nblocks ? 2 * per_l1 : nblocks);
	/* The top block: everything. */
	test_tamper(img, "top-level byte", vt_tree_block_pos(img, 0) + 1, 0,
		    nblocks);
}

/* Fewer tree reads with readahead on a sequential readahead pass. */
static uint64_t seq_tree_reads(const struct vt_image *img, const char *mode)
{
	char ra[32];
	const char *opts[] = { ra, NULL };
	struct vt_dev d;
	uint64_t reads, verified;
	unsigned bad = 0;

	snprintf(ra, sizeof(ra), "readahead=%s", mode);
	if (vt_dev_open(&d, img->path, opts)) {
		CHECK(0, "open");
		return 0;
	}
	for (uint64_t off = 0; off < img->data_size; off += 131072) {
		uint32_t len = img->data_size - off < 131072 ?
			       img->data_size - off : 131072;

		bad += !vt_read_ok(&d, img, off, len, VUBLK_REQ_READAHEAD);
	}
	reads = vt_dev_counter(&d, "tree_reads");
	verified = vt_dev_counter(&d, "blocks_verified");
	CHECK(bad == 0, "%s: %u reads wrong", mode, bad);
	CHECK(verified == img->meta.geometry.data_blocks,
	      "%s: %llu blocks verified, not %llu", mode,
	      (unsigned long long)verified,
	      (unsigned long long)img->meta.geometry.data_blocks);
	if (strcmp(mode, "off"))
		CHECK(vt_dev_counter(&d, "blocks_read_ahead") > 0,
		      "%s: nothing read ahead", mode);
	else
		CHECK(vt_dev_counter(&d, "blocks_read_ahead") == 0,
		      "off: something read ahead");
	vt_dev_close(&d);
	printf("# %s: sequential pass, readahead %s: %llu tree reads\n",
	       img->path, mode, (unsigned long long)reads);
	return reads;
}

static void test_readahead(const struct vt_image *img)
{
	uint64_t off = seq_tree_reads(img, "off");
	uint64_t compl = seq_tree_reads(img, "completion");
	uint64_t sub = seq_tree_reads(img, "submission");

	CHECK(compl < off && sub < off,
	      "tree reads: off %llu, completion %llu, submission %llu",
	      (unsigned long long)off, (unsigned long long)compl,
	      (unsigned long long)sub);
	/* Off reads each needed hash block once: the tree's block count. */
	CHECK(off == img->meta.geometry.tree_size >> img->log_bs,
	      "off: %llu tree reads for a tree of %llu blocks",
	      (unsigned long long)off,
	      (unsigned long long)(img->meta.geometry.tree_size >> img->log_bs));
}

/*
 * A cache of a few blocks: blocks get evicted and re-verified.  Requests
 * of at most 16 KiB keep the target's minimum cache (what one request
 * can pin) at about ten blocks, well below the tree's size.
 */
static void test_tiny_cache(const struct vt_image *img, const char *mode)
{
	char ra[32];
	const char *opts[] = { "cache-blocks=1", ra, NULL };
	uint64_t tree_blocks = img->meta.geometry.tree_size >> img->log_bs;
	uint64_t span = img->data_size - 16384;
	struct vt_dev d;
	unsigned bad = 0;

	snprintf(ra, sizeof(ra), "readahead=%s", mode);
	CHECK(vt_dev_open_io(&d, img->path, opts, 16384) == 0, "open");
	if (!d.ready)
		return;
	/* Forward, then strided from the back: the second walk needs
	 * blocks the first one pushed out. */
	for (uint64_t off = 0; off <= span; off += 16384)
		bad += !vt_read_ok(&d, img, off, 16384, VUBLK_REQ_READAHEAD);
	for (uint64_t i = 0; i <= span / 4096; i += 7)
		bad += !vt_read_ok(&d, img, span - i * 4096, 4096 + 512, 0);
	CHECK(bad == 0, "tiny cache, %s: %u reads wrong", mode, bad);
	CHECK(vt_dev_counter(&d, "tree_blocks_read") > tree_blocks,
	      "tiny cache, %s: %llu hash blocks read, tree has %llu: nothing evicted",
	      mode, (unsigned long long)vt_dev_counter(&d, "tree_blocks_read"),
	      (unsigned long long)tree_blocks);
	vt_dev_close(&d);
}

static void test_digest(const struct vt_image *img)
{
	char good[200], wrong[200];
	const char *ok_opts[] = { good, NULL }, *bad_opts[] = { wrong, NULL };
	struct vt_dev d;

	snprintf(good, sizeof(good), "digest=%s", img->digest);
	snprintf(wrong, sizeof(wrong), "digest=%s", img->digest);
	/* Another valid hex digit at the end: a different digest. */
	wrong[strlen(wrong) - 1] = wrong[strlen(wrong) - 1] == '0' ? '1' : '0';
	CHECK(vt_dev_open(&d, img->path, ok_opts) == 0, "right digest refused");
	vt_dev_close(&d);
	CHECK(vt_dev_open(&d, img->path, bad_opts) == -EPERM,
	      "wrong digest accepted");
	vt_dev_close(&d);
}

/* The first word of the line of FIXTURES/NAME that ends in " path". */
static bool fixture_word(const char *name, const char *path, char *out,
			 size_t size)
{
	char file[300], line[400], *sp;
	bool found = false;
	FILE *f;

	if ((size_t)snprintf(file, sizeof(file), "%s/%s",
			     getenv("VUBLK_F2FS_FIXTURES"), name) >= sizeof(file))
		return false;
	f = fopen(file, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		sp = strrchr(line, ' ');
		if (sp && !strcmp(sp + 1, path) && (size_t)(sp - line) < size) {
			*sp = '\0';
			/* sha256sum's two spaces */
			line[strcspn(line, " ")] = '\0';
			memcpy(out, line, strlen(line) + 1);	/* < size */
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Where byte off of f2fs file path is in the image at image. */
static bool f2fs_file_byte(const char *image, const char *path, uint64_t off,
			   uint64_t *pos)
{
	struct f2fslayout_file f = { 0 };
	struct f2fslayout_fs *fs = NULL;
	int fd = open(image, O_RDONLY);
	uint32_t ino;
	bool ok = fd >= 0 && !f2fslayout_fs_open(fd, &fs) &&
		  !f2fslayout_fs_lookup(fs, path, &ino) &&
		  !f2fslayout_file_open(fs, ino, &f);

	if (ok) {
		const struct f2fslayout_extent *e =
			&f.extents[f2fslayout_file_find_extent(&f, off)];

		ok = e->image_off != F2FSLAYOUT_HOLE;
		*pos = e->image_off + off - e->file_off;
		f2fslayout_file_release(&f);
	}
	f2fslayout_fs_close(fs);
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * --f2fs-file: one fs-verity file of a real f2fs image (a fixture the
 * kernel made, tests/f2fslayout/make-f2fs-fixtures), through every
 * backend, NBD included: the file's bytes, as sha256sum saw them in the
 * kernel; and EIO once a byte of its data is flipped in the image.
 */
static void test_f2fs_file(void)
{
	/* 16 blocks of 4 KiB, SHA-512, a salt; a multiple of 512 bytes, as a
	 * block device must be. */
	static const char path[] = "/b65536";
	char image[300], cmd[700], digest[200], sum[80], got[65];
	const char *opts[] = { "f2fs-file=/b65536", digest, NULL };
	const uint32_t chunk = 12 * 1024, bs = 4096;
	uint64_t size = 65536, pos = 0;
	unsigned char md[32];
	EVP_MD_CTX *ctx;
	struct vt_dev d;
	bool read_all = true;

	snprintf(image, sizeof(image), "%s/f2fs.img", dir);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s/basic.img.xz' >'%s'",
		 getenv("VUBLK_F2FS_FIXTURES"), image);
	strcpy(digest, "digest=");
	if (system(cmd) ||
	    !fixture_word("basic.digests", path, digest + 7, sizeof(digest) - 7) ||
	    !fixture_word("basic.sums", path, sum, sizeof(sum))) {
		CHECK(0, "f2fs fixture: cannot unpack it or find %s in it", path);
		return;
	}
	if (vt_dev_open(&d, image, opts)) {
		CHECK(0, "--f2fs-file=%s refused", path);
		return;
	}
	ctx = EVP_MD_CTX_new();
	CHECK(ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL), "EVP");
	for (uint64_t off = 0; off < size && read_all; off += chunk) {
		uint32_t len = size - off < chunk ? (uint32_t)(size - off) : chunk;

		read_all = vt_dev_read(&d, off, len, 0) == (int)len;
		CHECK(read_all, "%s: read at %llu failed", path,
		      (unsigned long long)off);
		EVP_DigestUpdate(ctx, vt_dev_buf(&d, 0), len);
	}
	EVP_DigestFinal_ex(ctx, md, NULL);
	EVP_MD_CTX_free(ctx);
	for (int i = 0; i < 32; i++)
		sprintf(got + 2 * i, "%02x", md[i]);
	CHECK(!strcmp(got, sum), "%s read %s, sha256sum in the kernel %s",
	      path, got, sum);
	vt_dev_close(&d);

	/* A byte of the file's block 10 flipped in the image: EIO there. */
	CHECK(f2fs_file_byte(image, path, 10 * bs + 5, &pos),
	      "cannot find %s's block 10 in the image", path);
	CHECK(pos && !vt_flip_file_byte(image, pos), "cannot flip byte %llu",
	      (unsigned long long)pos);
	if (vt_dev_open(&d, image, opts)) {
		CHECK(0, "--f2fs-file=%s refused after a data byte flip", path);
		return;
	}
	CHECK(vt_dev_read(&d, 10 * bs, bs, 0) == -EIO,
	      "a flipped byte of %s was served", path);
	CHECK(vt_dev_read(&d, 9 * bs, bs, 0) == (int)bs,
	      "the block before the flipped one failed");
	vt_dev_close(&d);
	unlink(image);
}

/* DIR/NAME.key.pem and DIR/NAME.pem of a test PKI entry. */
static bool write_pki_files(const struct test_pki_entry *e)
{
	char path[300];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s.key.pem", dir, e->spec->name);
	f = fopen(path, "w");
	ok = f && PEM_write_PrivateKey(f, e->key, NULL, NULL, 0, NULL, NULL);
	ok = f && !fclose(f) && ok;
	snprintf(path, sizeof(path), "%s/%s.pem", dir, e->spec->name);
	f = ok ? fopen(path, "w") : NULL;
	ok = f && PEM_write_X509(f, e->cert);
	return f && !fclose(f) && ok;
}

/* img's file digest signed by NAME's key, embedded in the copy of img
 * at embed_into, or else written to DIR/NAME.sig. */
static bool sign_image(const struct vt_image *img, const char *name,
		       const char *embed_into)
{
	bool embed = embed_into != NULL;
	char key[300], cert[300], path[300];
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE], *sig = NULL;
	size_t len = 0;
	int fd, err;

	snprintf(key, sizeof(key), "%s/%s.key.pem", dir, name);
	snprintf(cert, sizeof(cert), "%s/%s.pem", dir, name);
	snprintf(path, sizeof(path), "%s/%s.sig", dir, name);
	err = merkle_descriptor_digest((const void *)img->meta.desc, digest);
	if (!err)
		err = sig_sign(img->meta.params.hash_alg, digest, key, cert,
			       &sig, &len);
	fd = err ? -1 : open(embed ? embed_into : path,
			     embed ? O_RDWR : O_WRONLY | O_CREAT | O_TRUNC,
			     0644);
	if (fd >= 0 && embed)
		err = f2fslayout_write_signature(fd, &img->meta, sig,
						 (uint32_t)len);
	else if (fd >= 0)
		err = write(fd, sig, len) == (ssize_t)len ? 0 : -EIO;
	if (fd < 0 || close(fd))
		err = err ? err : -EIO;
	free(sig);
	return !err;
}

/*
 * The image's builtin signature, checked in init against --trusted-cert
 * as the kernel checks its keyring (lib/sig; tests/sig has the cases of
 * the signature itself): with and without --digest, embedded or given.
 */
static void test_signature(const struct vt_image *img)
{
	static const struct {
		const char *what, *opts[4];
		bool on_signed;
		int want;
	} cases[] = {
		{ "signed, its certificate", { "trusted-cert=@ec.pem" }, 1, 0 },
		{ "signed, another certificate",
		  { "trusted-cert=@expired.pem" }, 1, -EPERM },
		{ "signed, no certificate (not checked)", { NULL }, 1, 0 },
		{ "both certificates",
		  { "trusted-cert=@expired.pem", "trusted-cert=@ec.pem" }, 1, 0 },
		{ "given instead of embedded (an expired signer is accepted)",
		  { "trusted-cert=@expired.pem", "signature=@expired.sig" }, 1,
		  0 },
		{ "given, no certificate", { "signature=@expired.sig" }, 1,
		  -EINVAL },
		{ "unsigned, required", { "trusted-cert=@ec.pem",
					  "require-signature" }, 0, -EPERM },
		{ "unsigned, not required", { "trusted-cert=@ec.pem" }, 0, 0 },
		{ "signed, right digest, wrong certificate",
		  { "trusted-cert=@expired.pem", "digest=%" }, 1, -EPERM },
	};
	char opt[4][400];
	const char *opts[5];
	struct vt_image copy;
	struct test_pki pki;
	struct vt_dev d;
	int ret;

	CHECK(test_pki_make(&pki, 1u << TEST_PKI_EC | 1u << TEST_PKI_EXPIRED) &&
	      write_pki_files(&pki.e[TEST_PKI_EC]) &&
	      write_pki_files(&pki.e[TEST_PKI_EXPIRED]) &&
	      vt_image_copy(img, &copy, dir, "signed") == 0 &&
	      sign_image(img, "ec", copy.path) &&
	      sign_image(img, "expired", NULL), "set-up");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = 0;

		/* "@" is DIR/, "%" the image's digest. */
		for (; n < 4 && cases[c].opts[n]; n++) {
			const char *o = cases[c].opts[n], *at = strchr(o, '@');

			if (at)
				snprintf(opt[n], sizeof(opt[n]), "%.*s%s/%s",
					 (int)(at - o), o, dir, at + 1);
			else if (strchr(o, '%'))
				snprintf(opt[n], sizeof(opt[n]), "digest=%s",
					 img->digest);
			else
				snprintf(opt[n], sizeof(opt[n]), "%s", o);
			opts[n] = opt[n];
		}
		opts[n] = NULL;
		ret = vt_dev_open(&d, cases[c].on_signed ? copy.path : img->path,
				  opts);
		CHECK(ret == cases[c].want, "%s: init %d, want %d",
		      cases[c].what, ret, cases[c].want);
		if (ret == 0)
			CHECK(vt_read_ok(&d, img, 0, 4096, 0),
			      "%s: read after init", cases[c].what);
		vt_dev_close(&d);
	}
	vt_image_destroy(&copy);
	test_pki_free(&pki);
}

static void test_bad_images(const struct vt_image *img)
{
	struct vt_image copy, odd;
	struct vt_dev d;
	char cmd[600];

	/* A damaged trailer (its checksum catches it). */
	CHECK(vt_image_copy(img, &copy, dir, "bad-trailer") == 0, "copy");
	vt_image_flip(&copy, img->meta.layout.trailer_pos + 20);
	CHECK(vt_dev_open(&d, copy.path, NULL) == -EINVAL,
	      "damaged trailer accepted");
	vt_dev_close(&d);
	/* Truncated: the trailer is gone. */
	snprintf(cmd, sizeof(cmd), "truncate -s %llu '%s'",
		 (unsigned long long)img->meta.layout.desc_pos, copy.path);
	CHECK(system(cmd) == 0, "truncate");
	CHECK(vt_dev_open(&d, copy.path, NULL) == -EINVAL,
	      "truncated image accepted");
	vt_dev_close(&d);
	vt_image_destroy(&copy);
	/* Not a multiple of 512 bytes of data. */
	CHECK(vt_image_create(&odd, dir, "odd", 1000, 12, 5) == 0, "create odd");
	CHECK(vt_dev_open(&d, odd.path, NULL) == -EINVAL,
	      "1000-byte data accepted");
	vt_dev_close(&d);
	vt_image_destroy(&odd);
	CHECK(vt_dev_open(&d, "/nonexistent/image", NULL) == -ENOENT,
	      "missing image accepted");
}

/* Writes never reach the image. */
static void test_read_only(const struct vt_image *img)
{
	static const unsigned ops[] = { VUBLK_OP_WRITE, VUBLK_OP_DISCARD,
					VUBLK_OP_WRITE_ZEROES };
	uint8_t before[32], after[32];
	struct vt_dev d;

	CHECK(vt_file_sha256(img->path, before) == 0, "hash");
	CHECK(vt_dev_open(&d, img->path, NULL) == 0, "open");
	if (!d.ready)
		return;
	CHECK(d.tgt.read_only, "device not read-only");
	CHECK(d.tgt.dev_size == img->data_size, "size %llu",
	      (unsigned long long)d.tgt.dev_size);
	memset(vt_dev_buf(&d, 0), 0x5a, 8192);
	for (unsigned i = 0; i < 3; i++) {
		struct vublk_req req = { .op = ops[i], .offset = 0,
					 .len = 8192, .buf = vt_dev_buf(&d, 0) };

		CHECK(inproc_queue_run(&d.iq, 0, &req) == -EROFS,
		      "op %u not refused", ops[i]);
	}
	vt_dev_close(&d);
	CHECK(vt_file_sha256(img->path, after) == 0 &&
	      !memcmp(before, after, 32), "image changed");
}

/* --on-corruption=stop: the failing read gets -EIO, then the target asks
 * the core to stop the device (vublk_tgt_stop()), and only then. */
static void test_stop_on_corruption(const struct vt_image *img)
{
	const char *opts[] = { "on-corruption=stop", NULL };
	struct vt_image copy;
	struct vt_dev d;

	CHECK(vt_image_copy(img, &copy, dir, "stop") == 0, "copy");
	vt_image_flip(&copy, 5);
	CHECK(vt_dev_open(&d, copy.path, opts) == 0, "open");
	if (d.ready) {
		CHECK(vt_read_ok(&d, img, 1 << img->log_bs, 1 << img->log_bs, 0),
		      "intact block failed");
		CHECK(!inproc_tgt_stop_requested(&d.tgt),
		      "stopped without cause");
		CHECK(vt_dev_read(&d, 0, 4096, 0) == -EIO, "corrupt read passed");
		CHECK(inproc_tgt_stop_requested(&d.tgt),
		      "no stop on corruption");
		vt_dev_close(&d);
	}
	vt_image_destroy(&copy);
}

/*
 * The image shrinks under the running device (truncated at 4 MiB, a page
 * boundary): data past the new end, and data whose hash blocks are past it
 * (not cached yet), fail with -EIO -- pmem: the copy faults (SIGBUS, which
 * lib/pmem turns into -EIO); file: the read returns 0 bytes.  No
 * corruption is counted, and what is still there keeps reading right.
 */
static void test_truncated_under_device(const struct vt_image *img)
{
	const uint64_t cut = 4 << 20;
	struct vt_image copy;
	struct vt_dev d;

	CHECK(img->meta.layout.tree_pos > cut && img->data_size > 6 << 20,
	      "image too small for the truncation test");
	CHECK(vt_image_copy(img, &copy, dir, "truncated") == 0, "copy");
	CHECK(vt_dev_open(&d, copy.path, NULL) == 0, "open");
	if (d.ready) {
		/* Caches the top block and the level-0 block of blocks 0..127. */
		CHECK(vt_read_ok(&d, img, 0, 4096, 0), "read before truncation");
		CHECK(truncate(copy.path, cut) == 0, "truncate");
		CHECK(vt_dev_read(&d, 6 << 20, 8192, 0) == -EIO,
		      "data past the new end read");
		CHECK(vt_dev_read(&d, 2 << 20, 4096, 0) == -EIO,
		      "data whose hash blocks are gone read");
		CHECK(vt_read_ok(&d, img, 4096, 4096, 0),
		      "data below the cut with a cached hash block failed");
		CHECK(vt_dev_counter(&d, "io_errors") == 2, "%llu I/O errors, not 2",
		      (unsigned long long)vt_dev_counter(&d, "io_errors"));
		CHECK(vt_dev_counter(&d, "failures") == 0,
		      "a truncation counted as corruption");
		vt_dev_close(&d);
	}
	copy.data = NULL;
	vt_image_destroy(&copy);
}

/* The image's pages out of the page cache, but for those a process has
 * mapped in (the target's map, where it read in place). */
static void vt_evict(const char *path)
{
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0 && fdatasync(fd) == 0 &&
	      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0,
	      "cannot drop %s from the page cache", path);
	if (fd >= 0)
		close(fd);
}

/* Whether a device reads in place: where lib/merkle copies while it
 * hashes (SHA-256 on the SHA extensions), over file or pmem, unless
 * --read-in-place=off or --verify-thread (verity.c:
 * verity_reads_in_place()). */
static bool vt_in_place_expected(const struct vt_image *img,
				 const char *backend)
{
	return strcmp(merkle_hash_impl(&img->meta.params), "OpenSSL") &&
	       strcmp(backend, "nbd") &&
	       (!vt_extra_opt || !strcmp(vt_extra_opt, "verify-thread=off"));
}

/*
 * Where lib/merkle copies while it hashes (SHA-256 on the SHA
 * extensions), a file in the page cache or a pmem mapping is read in
 * place: the blocks are hashed straight out of the backend's map as they
 * are copied into the request.  Every read is right, and counted; a
 * request over 64 KiB, or that reaches the last, partial block, is read
 * with a bio; a
 * byte changed in the image fails its block.  File: blocks out of the
 * page cache are read with a bio, and in place the next time.  And an
 * image truncated between a request's start and its verification (the
 * copy takes SIGBUS) fails that request with -EIO, while the device goes
 * on.
 */
static void test_read_in_place(const struct vt_image *img, const char *backend)
{
	bool file = !strcmp(backend, "file");
	bool want = vt_in_place_expected(img, backend);
	const uint64_t half = img->data_size / 2 & ~65535ull;
	const uint64_t last = (img->data_size - 1) & ~4095ull;
	uint64_t before, bad = 0;
	struct vt_image copy;
	struct vt_dev d;
	char on[8];
	int res = 0;

	CHECK(vt_image_copy(img, &copy, dir, "in-place") == 0, "copy");
	CHECK(vt_dev_open(&d, copy.path, NULL) == 0, "open");
	if (!d.ready)
		goto out;
	inproc_tgt_setting(&d.tgt, "read_in_place", on, sizeof(on));
	CHECK(!strcmp(on, want ? "on" : "off"), "%s: read_in_place %s",
	      backend, on);
	if (!want)
		goto close;
	/* The first half, in place: it is in the page cache; but not in
	 * requests over VERITY_IN_PLACE_MAX_BYTES (64 KiB). */
	for (uint64_t off = 0; off < half; off += 65536)
		bad += !vt_read_ok(&d, img, off, 65536, 0);
	bad += !vt_read_ok(&d, img, 0, 131072, 0);
	CHECK(vt_dev_counter(&d, "blocks_read_in_place") == half >> img->log_bs,
	      "%s: %llu blocks of %llu read in place", backend,
	      (unsigned long long)vt_dev_counter(&d, "blocks_read_in_place"),
	      (unsigned long long)(half >> img->log_bs));
	/* File: out of the page cache, read with a bio, which brings it in,
	 * once the backend has looked again (backends/file_map.c: a chunk's
	 * answer stands FILE_MAP_LOOK_MS, 1 s); the last block not in place
	 * where it is partial. */
	if (file) {
		vt_evict(copy.path);
		usleep(1100 * 1000);
	}
	before = vt_dev_counter(&d, "blocks_read_in_place");
	bad += !vt_read_ok(&d, img, half, 8192, 0);
	bad += !vt_read_ok(&d, img, last, img->data_size - last, 0);
	if (!file)
		before += 8192 >> img->log_bs;
	if (!file && img->data_size % (1u << img->log_bs) == 0)
		before += (img->data_size - last) >> img->log_bs;
	CHECK(vt_dev_counter(&d, "blocks_read_in_place") == before,
	      "%s: %llu blocks read in place, not %llu", backend,
	      (unsigned long long)vt_dev_counter(&d, "blocks_read_in_place"),
	      (unsigned long long)before);
	bad += !vt_read_ok(&d, img, half, 8192, 0);
	CHECK(vt_dev_counter(&d, "blocks_read_in_place") ==
	      before + (8192 >> img->log_bs),
	      "%s: read again, %llu blocks read in place, not %llu", backend,
	      (unsigned long long)vt_dev_counter(&d, "blocks_read_in_place"),
	      (unsigned long long)(before + (8192 >> img->log_bs)));
	for (uint64_t off = half; off + 65536 <= last; off += 65536)
		bad += !vt_read_ok(&d, img, off, 65536, 0);
	CHECK(bad == 0, "%s: %llu reads wrong", backend,
	      (unsigned long long)bad);
	/* A byte changed in the image, seen through the map. */
	before = vt_dev_counter(&d, "blocks_read_in_place");
	CHECK(vt_image_flip(&copy, half + 5000) == 0, "flip");
	CHECK(vt_dev_read(&d, half, 8192, 0) == -EIO &&
	      vt_dev_counter(&d, "blocks_read_in_place") > before,
	      "%s: a block changed in the map read, or not in place", backend);
	CHECK(vt_image_flip(&copy, half + 5000) == 0, "flip back");
	CHECK(vt_dev_counter(&d, "failures") == 1, "%s: %llu failures, not 1",
	      backend, (unsigned long long)vt_dev_counter(&d, "failures"));
	/* Started in place (its hash blocks cached), truncated before the
	 * end of the pass verifies it. */
	inproc_queue_start(&d.iq, 0, &(struct vublk_req){
		.op = VUBLK_OP_READ, .offset = half, .len = 8192,
		.buf = vt_dev_buf(&d, 0) });
	CHECK(truncate(copy.path, half) == 0, "truncate");
	CHECK(inproc_queue_wait_all(&d.iq) == 0, "wait");
	CHECK(inproc_queue_pop(&d.iq, &(unsigned){ 0 }, &res) && res == -EIO,
	      "%s: a read of a truncated map returned %d", backend, res);
	CHECK(vt_read_ok(&d, img, 0, 4096, 0), "%s: a read below the cut",
	      backend);
	CHECK(vt_dev_counter(&d, "io_errors") == 1 &&
	      vt_dev_counter(&d, "read_in_place_faults") == 1 &&
	      vt_dev_counter(&d, "failures") == 1,
	      "%s: %llu I/O errors, %llu faults, %llu failures, not 1 each",
	      backend, (unsigned long long)vt_dev_counter(&d, "io_errors"),
	      (unsigned long long)vt_dev_counter(&d, "read_in_place_faults"),
	      (unsigned long long)vt_dev_counter(&d, "failures"));
close:
	vt_dev_close(&d);
out:
	copy.data = NULL;
	vt_image_destroy(&copy);
}

/*
 * In place, a request that crosses into a level-0 hash block not yet
 * cached (no readahead) stops there for the tree read and resumes with
 * the digests of its remaining blocks, not of its first ones.
 */
static void test_in_place_resume(const struct vt_image *img,
				 const char *backend)
{
	const char *opts[] = { "readahead=off", NULL };
	const uint64_t bs = 1ull << img->log_bs;
	const uint64_t arity = bs / 32;	/* SHA-256 digests per block */
	struct vt_dev d;

	if (!vt_in_place_expected(img, backend))
		return;
	CHECK(vt_dev_open(&d, img->path, opts) == 0, "open");
	if (!d.ready)
		return;
	CHECK(vt_read_ok(&d, img, 0, (uint32_t)bs, 0), "%s: block 0", backend);
	CHECK(vt_read_ok(&d, img, (arity - 1) * bs, (uint32_t)(3 * bs), 0) &&
	      vt_dev_counter(&d, "blocks_read_in_place") == 4,
	      "%s: across a level-0 block: wrong, or %llu blocks in place, not 4",
	      backend,
	      (unsigned long long)vt_dev_counter(&d, "blocks_read_in_place"));
	CHECK(vt_dev_counter(&d, "failures") == 0, "%s: failures counted",
	      backend);
	vt_dev_close(&d);
}

/*
 * A data byte changes under the running device, after its block and hash
 * blocks were read and verified: the next read of the block fails.  Data
 * is verified on every read, in the request's buffer, never trusted
 * because it was verified before.
 */
static void test_changed_under_device(const struct vt_image *img)
{
	const uint64_t pos = (100ull << img->log_bs) + 33;
	struct vt_image copy;
	struct vt_dev d;

	CHECK(vt_image_copy(img, &copy, dir, "changed") == 0, "copy");
	CHECK(vt_dev_open(&d, copy.path, NULL) == 0, "open");
	if (d.ready) {
		CHECK(vt_read_ok(&d, img, 100 << img->log_bs, 4096, 0),
		      "intact read");
		CHECK(vt_image_flip(&copy, pos) == 0, "flip");
		CHECK(vt_dev_read(&d, 100 << img->log_bs, 4096, 0) == -EIO,
		      "a block changed under the device read");
		CHECK(vt_image_flip(&copy, pos) == 0, "flip back");
		CHECK(vt_read_ok(&d, img, 100 << img->log_bs, 4096, 0),
		      "the repaired block failed");
		CHECK(vt_dev_counter(&d, "failures") == 1, "%llu failures, not 1",
		      (unsigned long long)vt_dev_counter(&d, "failures"));
		vt_dev_close(&d);
	}
	copy.data = NULL;
	vt_image_destroy(&copy);
}

/*
 * --direct (file backend): the data is read through the tags' registered
 * buffers (target.h: register_buffers) and verified there; a corrupt
 * block still fails.
 */
static void test_direct(const struct vt_image *img)
{
	const char *direct[] = { "direct", NULL };
	unsigned bs = 1U << img->log_bs;
	struct vt_image copy;
	struct vt_dev d;
	uint64_t off, bad = 0;
	int res;

	CHECK(vt_dev_open(&d, img->path, direct) == 0, "open %s --direct",
	      img->path);
	if (!d.ready)
		return;
	CHECK(d.iq.ring.bufs == (char *)d.bufs,
	      "--direct: no table for the request buffers");
	for (off = 0; off + 131072 <= img->data_size; off += 131072)
		bad += !vt_read_ok(&d, img, off, 131072, VUBLK_REQ_READAHEAD);
	bad += !vt_read_ok(&d, img, img->data_size - bs, bs, 0);
	CHECK(bad == 0, "--direct: %llu reads wrong", (unsigned long long)bad);
	/* Registered as far as requests went (128 KiB), then grown; unless
	 * refused (an unprivileged run under a low RLIMIT_MEMLOCK). */
	if (d.iq.ring.bufs_refused) {
		printf("# request buffers not registered (RLIMIT_MEMLOCK?): their checks skipped\n");
		vt_dev_close(&d);
		return;
	}
	CHECK(d.iq.ring.buf_registered[0] == 131072,
	      "--direct: %u bytes of tag 0's buffer registered, not 131072",
	      d.iq.ring.buf_registered[0]);
	bad = !vt_read_ok(&d, img, 0, 3 * 65536, VUBLK_REQ_READAHEAD);
	CHECK(!bad && d.iq.ring.buf_registered[0] == 262144,
	      "--direct: a 192 KiB read: %s, %u bytes registered, not 262144",
	      bad ? "wrong" : "right", d.iq.ring.buf_registered[0]);
	/* Through buffer buf_index indeed: io_uring refuses a range past
	 * its end (rsrc.c: io_import_fixed()). */
	res = inproc_queue_run(&d.iq, 1, &(struct vublk_req){
		.op = VUBLK_OP_READ, .flags = VUBLK_REQ_REG_BUF,
		.buf_index = 0, .len = 2 * bs,
		.buf = vt_dev_buf(&d, 0) + 262144 - bs });
	CHECK(res < 0, "--direct: a read past registered buffer 0 returned %d",
	      res);
	vt_dev_close(&d);

	CHECK(vt_image_copy(img, &copy, dir, "direct-tampered") == 0, "copy");
	CHECK(vt_image_flip(&copy, 5 * bs + 17) == 0, "flip");
	CHECK(vt_dev_open(&d, copy.path, direct) == 0, "open tampered --direct");
	if (d.ready) {
		res = vt_dev_read(&d, 4 * bs, 2 * bs, 0);
		CHECK(res == -EIO, "--direct: a read of a corrupt block returned %d",
		      res);
		CHECK(vt_read_ok(&d, img, 6 * bs, bs, 0),
		      "--direct: a good block after a corrupt one read wrong");
		vt_dev_close(&d);
	}
	vt_image_destroy(&copy);
}

/* --backend: a bad value and, with pmem or nbd, --direct are refused;
 * the stats name the backend. */
static void test_backend_option(const struct vt_image *img,
				const char *backend)
{
	const char *bad[] = { "backend=nvme", NULL };
	const char *bad_thread[] = { "verify-thread=sometimes", NULL };
	/* auto: a thread for a remote image (nbd), none for a local one. */
	bool thread = vt_extra_opt ? !strcmp(vt_extra_opt, "verify-thread") :
		      !strcmp(backend, "nbd");
	const char *direct[] = { "direct", NULL };
	char *json, want[64];
	struct vt_dev d;

	CHECK(vt_dev_open(&d, img->path, bad) == -EINVAL,
	      "--backend=nvme accepted");
	CHECK(vt_dev_open(&d, img->path, bad_thread) == -EINVAL,
	      "--verify-thread=sometimes accepted");
	if (strcmp(backend, "file"))
		CHECK(vt_dev_open(&d, img->path, direct) == -EINVAL,
		      "--direct accepted with --backend=%s", backend);
	CHECK(vt_dev_open(&d, img->path, NULL) == 0, "open");
	if (!d.ready)
		return;
	/* A remote image takes requests of at most 256 KiB, so that several
	 * of a readahead window are in flight; a local one up to the buffer
	 * (0: the core's max_sectors is then max_io_bytes). */
	CHECK(d.tgt.max_req_bytes == (strcmp(backend, "nbd") ? 0 : 256u << 10),
	      "--backend=%s: requests of at most %u bytes", backend,
	      d.tgt.max_req_bytes);
	json = inproc_tgt_stats(&d.tgt);
	CHECK(json, "no stats_json text");
	if (json) {
		snprintf(want, sizeof(want), "\"backend\": \"%s\"", backend);
		CHECK(strstr(json, want), "stats without %s: %s", want, json);
		snprintf(want, sizeof(want), "\"verify_thread\": \"%s\"",
			 thread ? "on" : "off");
		CHECK(strstr(json, want), "stats without %s: %s", want, json);
	}
	free(json);
	vt_dev_close(&d);
}

/*
 * nbd: the image converted to qcow2 and served by qemu-nbd (which has no
 * multi-conn: one connection), every block read and verified; the same
 * copy with a data byte flipped fails that block.
 */
static void test_qemu_nbd(const struct vt_image *img)
{
	char qcow[300], cmd[700], digest[200], json_want[] = "\"multi_conn\": false";
	const char *args[] = { "-r", "-f", "qcow2", qcow, NULL };
	const char *opts[] = { digest, NULL };
	struct nbd_server s;
	struct vt_dev d;
	uint64_t bad = 0;
	char *json;

	snprintf(qcow, sizeof(qcow), "%s/image.qcow2", dir);
	snprintf(digest, sizeof(digest), "digest=%s", img->digest);
	snprintf(cmd, sizeof(cmd), "qemu-img convert -f raw -O qcow2 '%s' '%s'",
		 img->path, qcow);
	if (system(cmd) || nbd_server_start_qemu(&s, dir, "qemu", args)) {
		CHECK(0, "qemu-nbd: no server");
		return;
	}
	CHECK(vt_dev_open(&d, s.uri, opts) == 0, "open through qemu-nbd");
	if (d.ready) {
		for (uint64_t off = 0; off < img->data_size; off += 65536) {
			uint32_t len = img->data_size - off < 65536 ?
				       img->data_size - off : 65536;

			bad += !vt_read_ok(&d, img, off, len,
					   VUBLK_REQ_READAHEAD);
		}
		CHECK(bad == 0, "qemu-nbd: %llu reads wrong",
		      (unsigned long long)bad);
		json = inproc_tgt_stats(&d.tgt);
		CHECK(json && strstr(json, json_want),
		      "qemu-nbd offered multi-conn: %s", json ? json : "");
		free(json);
		vt_dev_close(&d);
	}
	nbd_server_stop(&s);
	unlink(qcow);
}

/*
 * nbd: a server whose minimum block (4 KiB) is larger than the image's
 * blocks (1 KiB) cannot serve its reads: refused at init, not a read
 * error on every block later.
 */
static void test_server_min_block(const struct vt_image *img)
{
	const char *args[] = { "-r", "--filter=blocksize-policy", "file",
			       img->path, "blocksize-minimum=4096",
			       "blocksize-error-policy=error", NULL };
	struct nbd_server s;
	struct vt_dev d;

	if (nbd_server_start(&s, dir, "minblock", args)) {
		CHECK(0, "min block: no server");
		return;
	}
	CHECK(vt_dev_open(&d, s.uri, NULL) == -EINVAL,
	      "an image of 1 KiB blocks accepted on a server of 4 KiB blocks");
	if (d.ready)
		vt_dev_close(&d);
	nbd_server_stop(&s);
}

int main(int argc, char **argv)
{
	const char *backend = argc > 1 ? argv[1] : "file";
	char backend_opt[32];

	setvbuf(stdout, NULL, _IOLBF, 0);	/* FAIL lines before a hang */
	snprintf(backend_opt, sizeof(backend_opt), "backend=%s", backend);
	vt_backend_opt = backend_opt;
	vt_extra_opt = argc > 2 ? argv[2] : NULL;
	/* Under valgrind a queue blocked in io_uring_enter() never sees the
	 * poll that another thread's eventfd write completes (a loop of
	 * poll, write from a thread, wait hangs on its first round there;
	 * natively it answers every time), so the verify thread's answers
	 * would be lost: its path is tested in the other passes. */
	if (!vt_extra_opt && getenv("VUBLK_VALGRIND"))
		vt_extra_opt = "verify-thread=off";
	printf("# backend %s%s%s\n", backend, vt_extra_opt ? ", " : "",
	       vt_extra_opt ? vt_extra_opt : "");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	if (vt_image_create(&img_a, dir, "a.img", 2 * 1024 * 1024 + 512, 10, 1) ||
	    vt_image_create(&img_b, dir, "b.img", 8 * 1024 * 1024 + 12288, 12, 2)) {
		printf("FAIL: cannot create the test images in %s\n", dir);
		return 1;
	}
	CHECK(img_a.meta.geometry.num_levels == 3, "image A: %u levels",
	      img_a.meta.geometry.num_levels);
	for (unsigned m = 0; m < 3; m++) {
		test_read_all(&img_a, ra_modes[m]);
		test_read_all(&img_b, ra_modes[m]);
		test_tiny_cache(&img_a, ra_modes[m]);
		test_parallel_seq(&img_a, ra_modes[m]);
		test_parallel_seq(&img_b, ra_modes[m]);
	}
	test_parallel(&img_a);
	test_parallel(&img_b);
	test_overlapping_batches(&img_b);
	test_tampering(&img_a);
	test_tampering(&img_b);
	test_readahead(&img_b);
	test_digest(&img_b);
	test_signature(&img_b);
	test_bad_images(&img_b);
	test_read_only(&img_b);
	test_stop_on_corruption(&img_b);
	test_truncated_under_device(&img_b);
	test_changed_under_device(&img_b);
	test_read_in_place(&img_a, backend);
	test_read_in_place(&img_b, backend);
	test_in_place_resume(&img_a, backend);
	test_in_place_resume(&img_b, backend);
	test_backend_option(&img_b, backend);
	if (!strcmp(backend, "file"))
		test_direct(&img_b);
	test_f2fs_file();
	if (!strcmp(backend, "nbd")) {
		test_qemu_nbd(&img_b);
		test_server_min_block(&img_a);
	}
	vt_image_destroy(&img_a);
	vt_image_destroy(&img_b);
	rmdir(dir);
	printf("%s\n", vt_failures ? "FAILED" : "OK");
	return vt_failures ? 1 : 0;
}
