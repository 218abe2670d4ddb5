// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity.c - the verity target: a sealed image as a read-only device
 * whose every block is verified against its fs-verity Merkle tree.
 *
 * The image is what `vublk-verity format` writes: the data, then the tree
 * and descriptor past its end the way f2fs stores them (lib/f2fslayout).
 * This file has verity_image.c open and validate the image and
 * verity_trust.c check its file digest (--digest) and signature
 * (--trusted-cert), and sets the device shape, as fs/verity/open.c:
 * fsverity_file_open() + fsverity_init_merkle_tree_params() prepare a
 * verity inode; a READ is in verity_read.c, its bytes move through the
 * backend that --backend chooses (backends/: io_uring, a libpmem2
 * mapping, or an NBD server).  Options follow dm-verity where they have a counterpart
 * (--on-corruption ~ restart_on_corruption).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "targets.h"
#include "verity.h"

#define VERITY_DEFAULT_CACHE_MB 64
#define VERITY_MAX_CACHE_MB (1u << 20)	/* 1 TiB: anything larger is a typo */
/*
 * Requests of at most this much on a remote image, so that the 2 MiB
 * readahead window is eight round trips side by side, as the kernel's
 * nbd device reads ahead 256 KiB at a time: in a 7.3 guest reading over
 * NBD with 1 ms of latency, 256 KiB requests verified about 1.35x faster
 * than 1 MiB ones (docs/PERFORMANCE.md, "VM: a verify thread").
 */
#define VERITY_REMOTE_REQ_BYTES (256u << 10)

enum verity_opt {
	VERITY_OPT_DIGEST = 256,
	VERITY_OPT_CACHE_MB,
	VERITY_OPT_CACHE_BLOCKS,
	VERITY_OPT_READAHEAD,
	VERITY_OPT_ON_CORRUPTION,
	VERITY_OPT_DIRECT,
	VERITY_OPT_F2FS_FILE,
	VERITY_OPT_TRUSTED_CERT,
	VERITY_OPT_SIGNATURE,
	VERITY_OPT_REQUIRE_SIGNATURE,
	VERITY_OPT_IGNORE_ZERO_BLOCKS,
	VERITY_OPT_CHECK_AT_MOST_ONCE,
	VERITY_OPT_VERIFY_THREAD,
	VERITY_OPT_READ_IN_PLACE,
};

static const struct option verity_options[] = {
	{ "digest", required_argument, NULL, VERITY_OPT_DIGEST },
	{ "cache-mb", required_argument, NULL, VERITY_OPT_CACHE_MB },
	{ "cache-blocks", required_argument, NULL, VERITY_OPT_CACHE_BLOCKS },
	{ "readahead", required_argument, NULL, VERITY_OPT_READAHEAD },
	{ "on-corruption", required_argument, NULL, VERITY_OPT_ON_CORRUPTION },
	{ "ignore-zero-blocks", no_argument, NULL,
	  VERITY_OPT_IGNORE_ZERO_BLOCKS },
	{ "check-at-most-once", no_argument, NULL,
	  VERITY_OPT_CHECK_AT_MOST_ONCE },
	{ "direct", no_argument, NULL, VERITY_OPT_DIRECT },
	{ "verify-thread", optional_argument, NULL, VERITY_OPT_VERIFY_THREAD },
	{ "read-in-place", required_argument, NULL, VERITY_OPT_READ_IN_PLACE },
	VUBLK_BACKEND_OPTIONS,
	{ "f2fs-file", required_argument, NULL, VERITY_OPT_F2FS_FILE },
	{ "trusted-cert", required_argument, NULL, VERITY_OPT_TRUSTED_CERT },
	{ "signature", required_argument, NULL, VERITY_OPT_SIGNATURE },
	{ "require-signature", no_argument, NULL,
	  VERITY_OPT_REQUIRE_SIGNATURE },
	VERITY_DMV_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static const char *const verity_readahead_names[VERITY_RA_NR] = {
	[VERITY_RA_OFF] = "off",
	[VERITY_RA_COMPLETION] = "completion",
	[VERITY_RA_SUBMISSION] = "submission",
};

static const char *const verity_thread_names[VERITY_THREAD_NR] = {
	[VERITY_THREAD_AUTO] = "auto",
	[VERITY_THREAD_ON] = "on",
	[VERITY_THREAD_OFF] = "off",
};

static const char *const verity_off_on_names[] = { "off", "on" };

static const char *const verity_on_corruption_names[VERITY_CORRUPT_NR] = {
	[VERITY_CORRUPT_EIO] = "eio",
	[VERITY_CORRUPT_STOP] = "stop",
	[VERITY_CORRUPT_LOG] = "log",
};

/* Index of arg in names[n], or print why not and return -EINVAL. */
static int verity_parse_choice(const char *opt, const char *arg,
			       const char *const *names, unsigned n,
			       const char *expected)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	vublk_error("bad %s value '%s': expected %s", opt, arg, expected);
	return -EINVAL;
}

static int verity_parse_opt(struct vublk_tgt *t, int opt, const char *arg)
{
	struct verity_tgt *vt = t->priv;
	uint64_t v;
	int i;

	switch (opt) {
	case VERITY_OPT_DIGEST:
		return verity_parse_digest(vt, arg);
	case VERITY_OPT_CACHE_MB:
		if (vublk_parse_u64("--cache-mb", arg, 1, VERITY_MAX_CACHE_MB,
				    &v) < 0)
			return -EINVAL;
		vt->cache_bytes = v << 20;
		return 0;
	case VERITY_OPT_CACHE_BLOCKS:
		/* Testing knob: a cache of a few blocks forces evictions
		 * (init raises it to the working minimum). */
		if (vublk_parse_u64("--cache-blocks", arg, 1, UINT32_MAX,
				    &v) < 0)
			return -EINVAL;
		vt->cache_blocks = v;
		return 0;
	case VERITY_OPT_READAHEAD:
		i = verity_parse_choice("--readahead", arg,
					verity_readahead_names, VERITY_RA_NR,
					"off, completion or submission");
		if (i >= 0)
			vt->readahead = (enum verity_readahead)i;
		return i < 0 ? i : 0;
	case VERITY_OPT_ON_CORRUPTION:
		i = verity_parse_choice("--on-corruption", arg,
					verity_on_corruption_names,
					VERITY_CORRUPT_NR,
					"eio, stop or log");
		if (i >= 0)
			vt->on_corruption = (enum verity_on_corruption)i;
		return i < 0 ? i : 0;
	case VERITY_OPT_DIRECT:
		vt->direct = true;
		return 0;
	case VERITY_OPT_IGNORE_ZERO_BLOCKS:
		vt->ignore_zero_blocks = true;
		return 0;
	case VERITY_OPT_VERIFY_THREAD:
		i = arg ? verity_parse_choice("--verify-thread", arg,
					      verity_thread_names,
					      VERITY_THREAD_NR,
					      "on, off or auto") :
			  VERITY_THREAD_ON;
		if (i >= 0)
			vt->verify_thread_opt = (enum verity_thread_opt)i;
		return i < 0 ? i : 0;
	case VERITY_OPT_READ_IN_PLACE:
		i = verity_parse_choice("--read-in-place", arg,
					verity_off_on_names, 2, "on or off");
		if (i >= 0)
			vt->no_read_in_place = !i;
		return i < 0 ? i : 0;
	case VERITY_OPT_CHECK_AT_MOST_ONCE:
		vt->check_at_most_once = true;
		return 0;
	case VERITY_OPT_F2FS_FILE:
		vt->f2fs_file = arg;
		return 0;
	case VERITY_OPT_TRUSTED_CERT:
		return verity_add_trusted_cert(vt, arg);
	case VERITY_OPT_SIGNATURE:
		return verity_read_signature(vt, "--signature", arg);
	case VERITY_OPT_REQUIRE_SIGNATURE:
		vt->sig.require = true;
		return 0;
	case VERITY_OPT_FORMAT ... VERITY_OPT_ROOT_HASH_SIGNATURE:
		return verity_dmv_parse_opt(vt, opt, arg);
	default:
		return vublk_backend_parse_opt(&vt->backend, opt, arg);
	}
}

static unsigned verity_floor_log2(uint64_t v)
{
	return 63 - (unsigned)__builtin_clzll(v);
}

/*
 * A read-only device of exactly data_size bytes.  The logical block is the
 * Merkle block (capped at 4096, ublk's PAGE_SIZE limit) when data_size is
 * a multiple of it, so that requests are block aligned as on dm-verity,
 * whose logical block is its data_block_size; otherwise the largest power
 * of 2 dividing data_size.  Requests that are still not Merkle aligned
 * (blocks over 4 KiB, or a small logical block) go through a bounce
 * buffer in verity_read.c.
 */
static int verity_set_shape(struct vublk_tgt *t, struct verity_tgt *vt)
{
	uint64_t size = vt->img.layout.data_size;
	unsigned shift, smallest;

	vt->log_tree_bs = vt->img.params.log_blocksize;
	vt->log_bs = merkle_log_data_blocksize(&vt->img.params);
	/* Its data and hash blocks are its smallest reads. */
	smallest = vt->log_bs < vt->log_tree_bs ? vt->log_bs : vt->log_tree_bs;
	if (vt->be->block_size_strict && smallest < vt->be->block_shift) {
		vublk_error("verity image %s has %u-byte blocks, smaller than the %u-byte blocks its server serves: it cannot be read there (serve it from a server that allows %u-byte blocks, or seal it with larger ones)",
			    t->backing_file, 1u << smallest,
			    1u << vt->be->block_shift, 1u << smallest);
		return -EINVAL;
	}
	if (size == 0 || size % 512) {
		vublk_error("verity image %s holds %" PRIu64 " bytes of data, not a positive multiple of 512: a block device cannot expose that (seal an image whose data size is a multiple of 512)",
			    t->backing_file, size);
		return -EINVAL;
	}
	shift = vt->log_bs < 12 ? vt->log_bs : 12;
	while (size & ((1ULL << shift) - 1))
		shift--;
	t->dev_size = size;
	t->read_only = true;
	t->logical_bs_shift = shift;
	t->physical_bs_shift = vt->log_bs;
	t->io_min_shift = vt->log_bs;
	/* A large io_opt makes the kernel read ahead far
	 * (blk_apply_bdi_limits(): ra_pages = max(io_opt * 2, 128 KiB)),
	 * and tree readahead is a quarter of a request.  On a remote image
	 * the window goes out in smaller requests, more of them in flight,
	 * but never less than a data block (a dm-verity one may be 512 KiB). */
	t->io_opt_shift = t->max_io_bytes ? verity_floor_log2(t->max_io_bytes) :
			  vt->log_bs;
	if (t->io_opt_shift < vt->log_bs)
		t->io_opt_shift = vt->log_bs;
	if (vt->be->remote)
		t->max_req_bytes = VERITY_REMOTE_REQ_BYTES > 1u << vt->log_bs ?
				   VERITY_REMOTE_REQ_BYTES : 1u << vt->log_bs;
	/* On a remote image, hash beside the queue by default: the queue
	 * receives the next reply meanwhile (verity_worker.c). */
	vt->verify_thread = vt->verify_thread_opt == VERITY_THREAD_ON ||
			    (vt->verify_thread_opt == VERITY_THREAD_AUTO &&
			     vt->be->remote);
	/* The image's or, with --f2fs-file, the remap's, which has its
	 * image's and passes the flag on to it. */
	t->register_buffers = vt->be->pins_buffers;
	t->volatile_cache = false;
	t->discard = false;
	return 0;
}

/* --check-at-most-once: dm-verity's validated_blocks bitmap, a bit per
 * data block, shared by the queues. */
static int verity_alloc_checked(struct verity_tgt *vt)
{
	uint64_t words = (vt->img.geometry.data_blocks + 63) / 64;

	vt->checked = calloc(words ? words : 1, sizeof(*vt->checked));
	return vt->checked ? 0 : MERKLE_E_NOMEM;
}

/*
 * Whether cached blocks are read in place (verity_read.c): where lib/merkle
 * copies while it hashes and the backend maps the image.  Not with the
 * options that hash less than every block (dm-verity's
 * --check-at-most-once and --ignore-zero-blocks: in place, every block
 * is hashed as it is copied), nor with --verify-thread, whose thread is
 * there to hash beside the queue's, where this hashes on the queue's.
 */
static bool verity_reads_in_place(struct verity_tgt *vt)
{
	return !vt->no_read_in_place && !vt->check_at_most_once &&
	       !vt->ignore_zero_blocks && !vt->verify_thread &&
	       merkle_tree_can_copy_hash(vt->tree) &&
	       vublk_backend_map(vt->be);
}

/* One cache for all queues; it must hold what they can pin at once. */
static int verity_open_tree(struct vublk_tgt *t, struct verity_tgt *vt)
{
	uint64_t queues = t->nr_queues ? t->nr_queues : 1;
	uint64_t min = queues * verity_max_tree_blocks(t) << vt->log_tree_bs;
	uint64_t budget = vt->cache_blocks ?
			  vt->cache_blocks << vt->log_tree_bs :
			  vt->cache_bytes ? vt->cache_bytes :
			  (uint64_t)VERITY_DEFAULT_CACHE_MB << 20;
	int err;

	if (budget < min) {
		vublk_info("tree cache raised from %" PRIu64 " to %" PRIu64 " bytes: the hash blocks that %" PRIu64 " queues can need at once",
			   budget, min, queues);
		budget = min;
	}
	vt->cache = merkle_cache_new(budget);
	if (!vt->cache) {
		vublk_error("cannot allocate the tree cache: out of memory");
		return -ENOMEM;
	}
	/* No read_tree: the read path reads what the verifier lacks. */
	err = merkle_tree_open(&vt->tree, &vt->img.params, vt->img.root_hash,
			       vt->cache, NULL, NULL);
	if (!err && vt->ignore_zero_blocks)
		err = merkle_tree_ignore_zero_blocks(vt->tree);
	if (!err && vt->check_at_most_once)
		err = verity_alloc_checked(vt);
	if (err) {
		vublk_error("cannot open the Merkle tree of %s: %s",
			    t->backing_file, merkle_strerror(err));
		return merkle_error_kind(err) == MERKLE_ERR_NOMEM ? -ENOMEM :
		       -EINVAL;
	}
	vt->in_place = verity_reads_in_place(vt);
	return 0;
}

/* The certificates and signature read when parsed (verity_trust.c):
 * released here only, after deinit or without init. */
static void verity_free_options(struct vublk_tgt *t)
{
	verity_trust_release(t->priv);
}

/* The image's format as `vublk add --format` and veritysetup's
 * --format=0|1 name it (type 0 is Chrome OS's). */
static const char *verity_format_name(const struct verity_tgt *vt)
{
	switch (vt->img.params.format) {
	case MERKLE_FORMAT_DMVERITY:
		return "dm-verity";
	case MERKLE_FORMAT_DMVERITY_V0:
		return "dm-verity hash type 0";
	default:
		return "fs-verity";
	}
}

static void verity_release(struct verity_tgt *vt)
{
	if (vt->tree)
		merkle_tree_close(vt->tree);
	merkle_cache_free(vt->cache);
	free(vt->checked);
	verity_dmv_close(vt);
	verity_close_image(vt);
	verity_ratelimit_destroy(&vt->ratelimit);
}

static int verity_init(struct vublk_tgt *t)
{
	struct verity_tgt *vt = t->priv;
	int ret;

	verity_ratelimit_init(&vt->ratelimit);
	ret = verity_open_backend(t, vt);
	if (!ret)
		ret = verity_read_image(t, vt);
	if (!ret)
		ret = verity_set_shape(t, vt);
	if (!ret)
		ret = verity_open_file(t, vt);
	if (!ret)
		ret = verity_check_trust(t, vt);
	if (!ret)
		ret = verity_open_tree(t, vt);
	if (ret) {
		verity_release(vt);
		return ret;
	}
	vublk_info("verity image %s: %s, %" PRIu64 " bytes of data, %s (%s), %u-byte blocks, %u tree levels, backend %s%s, readahead %s, on corruption %s",
		   t->backing_file, verity_format_name(vt),
		   vt->img.layout.data_size,
		   merkle_hash_alg_name(vt->img.params.hash_alg),
		   merkle_hash_impl(&vt->img.params),
		   1U << vt->log_bs, vt->img.geometry.num_levels,
		   vt->image.ops->name,
		   vt->in_place ? " (cached blocks read in place)" : "",
		   verity_readahead_names[vt->readahead],
		   verity_on_corruption_names[vt->on_corruption]);
	if (vt->on_corruption == VERITY_CORRUPT_LOG || vt->check_at_most_once)
		vublk_error("warning: %s: reads may return data that failed verification (--on-corruption=log) or changed since verified (--check-at-most-once)",
			    t->backing_file);
	return 0;
}

static void verity_deinit(struct vublk_tgt *t)
{
	verity_release(t->priv);
}

/* Settings, then the counters: the target's, and lib/merkle's. */
static void verity_report(struct vublk_tgt *t, struct vublk_stats_out *out)
{
	struct verity_tgt *vt = t->priv;
	struct verity_counters *c = &vt->counters;
	struct merkle_stats ms;

	merkle_tree_stats(vt->tree, &ms);
	vublk_stat_str(out, "format", verity_format_name(vt));
	vublk_stat_str(out, "backend", vt->image.ops->name);
	vublk_stat_str(out, "signature", verity_signature_status(vt));
	vublk_stat_str(out, "readahead_mode",
		       verity_readahead_names[vt->readahead]);
	vublk_stat_str(out, "verify_thread", vt->verify_thread ? "on" : "off");
	vublk_stat_str(out, "read_in_place", vt->in_place ? "on" : "off");
	vublk_stat_u64(out, "blocks_verified", ms.blocks_verified);
	vublk_stat_u64(out, "tree_reads", verity_counter(&c->tree_reads));
	vublk_stat_u64(out, "tree_blocks_read",
		       verity_counter(&c->tree_blocks_read));
	vublk_stat_u64(out, "blocks_read_ahead",
		       verity_counter(&c->blocks_read_ahead));
	vublk_stat_u64(out, "cache_hits", ms.cache_hits);
	vublk_stat_u64(out, "cache_misses", ms.cache_misses);
	vublk_stat_u64(out, "failures", ms.failures);
	vublk_stat_u64(out, "io_errors", verity_counter(&c->io_errors));
	vublk_stat_u64(out, "corrupt_served",
		       verity_counter(&c->corrupt_served));
	vublk_stat_u64(out, "zero_blocks", verity_counter(&c->zero_blocks));
	vublk_stat_u64(out, "blocks_read_in_place",
		       verity_counter(&c->blocks_in_place));
	vublk_stat_u64(out, "read_in_place_faults",
		       verity_counter(&c->in_place_faults));
	vublk_backend_report(vt->be, out);
}

const struct vublk_tgt_ops vublk_tgt_verity = {
	.name = "verity",
	.summary = "a sealed image (vublk-verity format, or veritysetup format), read-only, every block verified",
	.usage =
		"  --digest=ALG:HEX   the image's trusted file digest (as printed by\n"
		"                     vublk-verity format); without it or a signature only\n"
		"                     self-consistency is checked\n"
		"  --trusted-cert=CERT  check the image's signature (vublk-verity sign,\n"
		"                     fsverity sign) against this X.509 certificate, PEM or\n"
		"                     DER (repeatable), as the kernel checks its .fs-verity\n"
		"                     keyring; with --digest, both must hold\n"
		"  --signature=FILE   check this detached signature instead of the one\n"
		"                     embedded in the image\n"
		"  --require-signature  refuse an unsigned image\n"
		"  --cache-mb=N       Merkle tree cache shared by all queues, MiB (default 64)\n"
		"  --readahead=MODE   tree reads ahead of verification (docs/DAEMON.md):\n"
		"                     submission (default; Linux 7.0+ fsverity_readahead():\n"
		"                     every level, read with the data), completion (the 2020\n"
		"                     fs-verity readahead: level 0, on a readahead request's\n"
		"                     miss) or off (one hash block per miss)\n"
		"  --on-corruption=eio|stop|log  fail the request (default), fail it and\n"
		"                     stop the device, or log the block and return its\n"
		"                     data unverified (dm-verity's ignore_corruption)\n"
		"  --ignore-zero-blocks  a block whose hash is that of zeroes reads as\n"
		"                     zeroes, whatever is stored (dm-verity's option)\n"
		"  --check-at-most-once  verify each data block on its first read only\n"
		"                     (dm-verity's option: later reads are not checked)\n"
		"  --verify-thread[=on|off|auto]  hash on a thread beside each queue's,\n"
		"                     as dm-verity's kverityd does, so that the queue\n"
		"                     receives the next data meanwhile; auto (default): on\n"
		"                     for an NBD image, off for a local one (where the\n"
		"                     hand-off per batch only costs)\n"
		"  --read-in-place=on|off  on (default): blocks in the page cache (or on\n"
		"                     pmem) are hashed straight out of a map of the image\n"
		"                     as they are copied into the request, where SHA-256\n"
		"                     runs on the SHA extensions; off: always read them\n"
		"  --direct           read the image with O_DIRECT (needs 4 KiB Merkle blocks;\n"
		"                     --backend=file only; request buffers are registered\n"
		"                     with io_uring as used, and pinned)\n"
		"  --backend=file|pmem|nbd  how the image is read: file (default: io_uring\n"
		"                     reads), pmem (copies out of a libpmem2 mapping of IMAGE,\n"
		"                     best on a -o dax filesystem; a fault fails the read with\n"
		"                     EIO), or nbd (IMAGE is an NBD URI, which selects it: the\n"
		"                     image on an NBD server, metadata, tree and data alike)\n"
		VUBLK_BACKEND_REMOTE_USAGE
		"  --f2fs-file=PATH   IMAGE is a real f2fs: serve its fs-verity file PATH (from\n"
		"                     the filesystem's root), with the file's own tree and\n"
		"                     descriptor; --digest is what `fsverity measure` prints\n"
		"  --cache-blocks=N   (testing) a cache of N hash blocks, raised to the minimum\n"
		"  --format=fs-verity|dm-verity  fs-verity (default): IMAGE is sealed by\n"
		"                     vublk-verity format; dm-verity: IMAGE is the data\n"
		"                     device of an image that veritysetup format wrote, and\n"
		"                     the options below are veritysetup's\n"
		"  --hash-device=HASH (dm-verity) the hash device or file (default: IMAGE,\n"
		"                     the hash area at --hash-offset)\n"
		"  --hash-offset=BYTES  (dm-verity) where the superblock, or with\n"
		"                     --no-superblock the tree, starts (default 0)\n"
		"  --root-hash=HEX    (dm-verity) the trusted root hash veritysetup printed\n"
		"  --root-hash-signature=FILE  (dm-verity) a PKCS#7 (DER) of the root hash's\n"
		"                     hex text, checked against --trusted-cert as dm-verity\n"
		"                     checks it (--require-signature: refuse none)\n"
		"  --no-superblock    (dm-verity) no superblock: the parameters are these:\n"
		"  --hash=ALG         (dm-verity, no superblock) sha256 (default), or any\n"
		"                     other algorithm veritysetup's OpenSSL takes: sha1,\n"
		"                     sha224, sha384, sha512, sha512-224, sha512-256,\n"
		"                     sha3-224, sha3-256, sha3-384, sha3-512, shake128,\n"
		"                     shake256, keccak-kmac-128, keccak-kmac-256,\n"
		"                     blake2b-512, blake2s-256, sm3, md5, md5-sha1, md4,\n"
		"                     rmd160, whirlpool, or another of OpenSSL's names\n"
		"  --data-block-size=N, --hash-block-size=N  (dm-verity, no superblock)\n"
		"                     powers of 2 from 512 to 524288 (default 4096)\n"
		"  --data-blocks=N    (dm-verity, no superblock) default: all of IMAGE\n"
		"  --salt=HEX         (dm-verity, no superblock) up to 256 bytes; - is none\n"
		"  --hash-type=0|1    (dm-verity, no superblock) veritysetup's --format: 1\n"
		"                     (default), or 0, Chrome OS's original\n",
	.priv_size = sizeof(struct verity_tgt),
	.options = verity_options,
	.parse_opt = verity_parse_opt,
	.free_options = verity_free_options,
	.init = verity_init,
	.deinit = verity_deinit,
	.queue_init = verity_queue_init,
	.queue_deinit = verity_queue_deinit,
	.queue_io = verity_queue_io,
	.queue_batch_end = verity_queue_batch_end,
	.report = verity_report,
};
