// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_read.c - a READ of the verity target, top to bottom.
 *
 * This is fs/verity/verify.c: fsverity_verify_bio() made asynchronous:
 *
 *  1. verity_read_start(): the Merkle blocks covering the request are read
 *     by the backend, straight into the request buffer when the request is
 *     Merkle-block aligned, else into a bounce buffer that is verified
 *     whole and copied out (the kernel verifies whole blocks too: a page is
 *     never partly verified).  Or, where the backend maps the store and
 *     the blocks are there to read now (in the page cache, say), they are
 *     not read at all: step 2 hashes them straight out of the map as it
 *     copies them into that buffer (verity_take_from_map()).  With
 *     --readahead=submission, merkle_plan_reads() lists every uncached
 *     hash block the request needs, at every level, and those are read
 *     along with the data (Linux 7.0's fsverity_readahead() at read
 *     submission).
 *  2. verity_queue_batch_end(): once every read is in, the request waits
 *     for the end of the queue's pass over its completions, and then all
 *     the requests that are ready are verified in one merkle_verify_many()
 *     call, their blocks hashed up to 16 at a time across requests (a
 *     4 KiB random read is one block: alone it would have no partner).
 *     When it lacks a hash block it says which (MERKLE_NEED_TREE): that
 *     extent is read, put in the cache, and verification resumes at the
 *     first unverified block.  With
 *     --readahead=completion (the 2020 "implement readahead of Merkle tree
 *     pages" commit) such a level-0 miss of a readahead request brings up
 *     to a quarter of the request's size of following level-0 blocks along.
 *  3. verity_read_finish(): the request completes; one bad block fails the
 *     whole request with -EIO (verity_report.c).
 *
 * Reads are bios on the target's backend (backend.h): an asynchronous one
 * (file) answers through end_io later, a synchronous one (pmem) at once;
 * the request holds one reference to itself while it issues them
 * (io->pending), as the kernel holds a bio's remaining count, so that an
 * answer at once never runs the next step too early.  A queue thread never
 * blocks on I/O.
 *
 * Tree reads in flight are shared: a request that needs a hash block
 * another request of the queue is reading waits for that read (like a
 * page locked under read in the page cache) instead of reading it again.
 *
 * The data is always verified in the request's own buffer, never in place
 * in the image: what is verified is what the request returns, even if the
 * image changes meanwhile.  Read in place, it is hashed as it is copied
 * into that buffer, from the very loads that copy it
 * (merkle_tree_copy_hash()), which comes to the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "verity.h"

/* Buffers are aligned for O_DIRECT. */
#define VERITY_BUF_ALIGN 4096

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static struct verity_io *verity_io_of(struct vublk_queue *q, unsigned tag)
{
	return &((struct verity_queue *)q->priv)->ios[tag];
}

unsigned verity_max_tree_blocks(const struct vublk_tgt *t)
{
	const struct verity_tgt *vt = t->priv;
	const struct merkle_geometry *g = &vt->img.geometry;
	uint64_t max_io = t->max_io_bytes ? t->max_io_bytes : 1U << 20;
	/* Data blocks of the largest request, unaligned at both ends. */
	uint64_t span = (max_io >> vt->log_bs) + 2;
	uint64_t total = span / 4;	/* level-0 readahead */

	for (unsigned level = 0; level < g->num_levels; level++) {
		span = (span >> g->log_arity) + 2;
		total += span;
	}
	return (unsigned)total;
}

static void verity_worker_done(struct vublk_queue *q, int err);

/* No request is left: the worker holds no batch. */
static bool verity_batch_alloc(struct verity_batch *b, unsigned depth)
{
	b->ios = calloc(depth, sizeof(*b->ios));
	b->reqs = calloc(depth, sizeof(*b->reqs));
	return b->ios && b->reqs;
}

static void verity_batch_free(struct verity_batch *b)
{
	free(b->ios);
	free(b->reqs);
}

static void verity_queue_free(struct verity_queue *vq)
{
	verity_worker_stop(vq->worker);
	free(vq->ready);
	verity_batch_free(&vq->own);
	verity_batch_free(&vq->handed);
	free(vq);
}

int verity_queue_init(struct vublk_queue *q)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_queue *vq = calloc(1, sizeof(*vq) +
					 q->depth * sizeof(struct verity_io));
	int ret;

	if (!vq)
		return -ENOMEM;
	vq->ready = calloc(q->depth, sizeof(*vq->ready));
	if (!vq->ready || !verity_batch_alloc(&vq->own, q->depth) ||
	    (vt->verify_thread && !verity_batch_alloc(&vq->handed, q->depth))) {
		verity_queue_free(vq);
		return -ENOMEM;
	}
	for (unsigned tag = 0; tag < q->depth; tag++)
		vq->ios[tag].tag = tag;
	if (vt->verify_thread) {
		ret = verity_worker_start(q, vt->tree, verity_worker_done,
					  &vq->worker);
		if (ret) {
			verity_queue_free(vq);
			return ret;
		}
	}
	ret = vublk_backend_queue_init(vt->be, q);
	/* A dm-verity hash device is a store of its own. */
	if (!ret && vt->tree_be != vt->be) {
		ret = vublk_backend_queue_init(vt->tree_be, q);
		if (ret)
			vublk_backend_queue_deinit(vt->be, q);
	}
	if (ret) {
		verity_queue_free(vq);
		return ret;
	}
	q->priv = vq;
	return 0;
}

void verity_queue_deinit(struct vublk_queue *q)
{
	struct verity_tgt *vt = q->tgt->priv;

	if (vt->tree_be != vt->be)
		vublk_backend_queue_deinit(vt->tree_be, q);
	vublk_backend_queue_deinit(vt->be, q);
	for (unsigned tag = 0; tag < q->depth; tag++) {
		free(verity_io_of(q, tag)->tbuf);
		free(verity_io_of(q, tag)->bounce);
		free(verity_io_of(q, tag)->digests);
	}
	verity_queue_free(q->priv);
}

/* Make *buf hold need bytes, aligned; only while no read into it is in
 * flight.  A tag keeps the largest it needed. */
static int verity_reserve(uint8_t **buf, size_t *size, size_t need)
{
	void *p;

	if (*size >= need)
		return 0;
	need = (need + VERITY_BUF_ALIGN - 1) / VERITY_BUF_ALIGN *
	       VERITY_BUF_ALIGN;
	if (posix_memalign(&p, VERITY_BUF_ALIGN, need))
		return -ENOMEM;
	free(*buf);
	*buf = p;
	*size = need;
	return 0;
}

static uint64_t verity_data_pos(const struct verity_tgt *vt,
				const struct verity_io *io)
{
	return io->first_block << vt->log_bs;
}

/* ---- the end ---- */

static void verity_read_finish(struct vublk_queue *q, struct verity_io *io,
			       int res)
{
	const struct verity_tgt *vt = q->tgt->priv;

	if (res >= 0 && io->data != io->req.buf)
		memcpy(io->req.buf,
		       io->data + (io->req.offset - verity_data_pos(vt, io)),
		       io->req.len);
	vublk_complete_io(q, io->tag, res >= 0 ? (int)io->req.len : res);
}

/* Count an I/O error, log it (what failed, err) and fail io with -EIO. */
static void verity_read_fail(struct vublk_queue *q, struct verity_io *io,
			     const char *what, int err)
{
	struct verity_tgt *vt = q->tgt->priv;

	verity_count(&vt->counters.io_errors, 1);
	vublk_error("device %u: read of %u bytes at byte %" PRIu64 " failed: %s: %s",
		    q->tgt->dev_id, io->req.len, io->req.offset, what,
		    merkle_strerror(err));
	verity_read_finish(q, io, -EIO);
}

/* ---- tree reads ---- */

/*
 * Level-0 hash blocks in [block, block + count) that the request itself
 * does not map to: what a readahead brought along.
 */
static uint64_t verity_count_read_ahead(const struct verity_tgt *vt,
					const struct verity_io *io,
					uint64_t block, uint64_t count)
{
	const struct merkle_geometry *g = &vt->img.geometry;
	uint64_t last = io->end_block - 1, n = 0;
	uint64_t need_lo, need_hi;

	if (g->num_levels == 0)
		return 0;
	if (last >= g->data_blocks)
		last = g->data_blocks - 1;
	need_lo = g->level_start[0] + (io->first_block >> g->log_arity);
	need_hi = g->level_start[0] + (last >> g->log_arity);
	for (uint64_t b = block; b < block + count; b++)
		if (b >= g->level_start[0] &&
		    b < g->level_start[0] + g->level_blocks[0] &&
		    (b < need_lo || b > need_hi))
			n++;
	return n;
}

static void verity_count_tree_read(struct verity_tgt *vt,
				   const struct verity_io *io, uint64_t off,
				   uint32_t len)
{
	uint64_t first = off >> vt->log_tree_bs;
	uint64_t count = len >> vt->log_tree_bs;

	verity_count(&vt->counters.tree_reads, 1);
	verity_count(&vt->counters.tree_blocks_read, count);
	verity_count(&vt->counters.blocks_read_ahead,
		     verity_count_read_ahead(vt, io, first, count));
}

/* A tree read of a request of this queue, in flight, covering tree
 * offset off. */
static const struct verity_tree_read *
verity_busy_tree_read(struct vublk_queue *q, uint64_t off)
{
	for (unsigned tag = 0; tag < q->depth; tag++) {
		const struct verity_io *io = verity_io_of(q, tag);

		for (unsigned i = 0; i < io->nreads; i++) {
			const struct verity_tree_read *r = &io->reads[i];

			if (r->busy && off >= r->off &&
			    off - r->off < r->bio.req.len)
				return r;
		}
	}
	return NULL;
}

/*
 * One reference of io dropped: after the last one the request fails, or
 * waits with the others whose reads are in, to be verified together at
 * the end of this pass over the queue's completions
 * (verity_queue_batch_end()).
 */
static void verity_read_put(struct vublk_queue *q, struct verity_io *io)
{
	struct verity_queue *vq = q->priv;

	if (--io->pending)
		return;
	if (io->error)
		verity_read_fail(q, io, io->error_what, io->error);
	else
		vq->ready[vq->nready++] = io;
}

static void verity_read_error(struct verity_io *io, const char *what,
			      int err)
{
	if (!io->error) {
		io->error = err;
		io->error_what = what;
	}
}

/* Tree read id is in: the requests that wait for it may go on.  A read
 * that failed only means its blocks are not cached: they ask again. */
static void verity_wake_waiters(struct vublk_queue *q, uint64_t id)
{
	for (unsigned tag = 0; tag < q->depth; tag++) {
		struct verity_io *io = verity_io_of(q, tag);

		for (unsigned i = 0; i < io->waits; i++) {
			if (io->wait_ids[i] != id)
				continue;
			io->wait_ids[i] = io->wait_ids[--io->waits];
			verity_read_put(q, io);
			break;
		}
	}
}

/* A tree read is in: cache its blocks (unverified: they are checked
 * when used), wake who waits for it, and drop its reference. */
static void verity_tree_read_end(struct vublk_queue *q, struct vublk_bio *bio,
				 int res)
{
	struct verity_tree_read *r = container_of(bio, struct verity_tree_read,
						  bio);
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_io *io = r->io;

	r->busy = false;
	if (res >= 0)
		res = merkle_cache_fill(vt->tree, r->off, bio->req.buf,
					bio->req.len);
	if (res)
		verity_read_error(io, "reading the Merkle tree", res);
	verity_wake_waiters(q, r->id);
	verity_read_put(q, io);
}

/*
 * Get tree bytes [off, off + len) into the cache for io, whose tree
 * buffer has room from tbuf_used.  If a read in flight already covers the
 * first block, wait for it; else read up to the first block that one
 * covers, or that is cached (read since the range was planned: with
 * --verify-thread, other requests' tree reads end while a batch is
 * hashed).  Either way the rest of the range, which is readahead or
 * blocks some other request is reading, is left to the verifier to ask
 * for again: that keeps tree reads few and large, and no hash block is
 * read twice.
 */
static void verity_read_tree_range(struct vublk_queue *q, struct verity_io *io,
				   uint64_t off, uint32_t len)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_queue *vq = q->priv;
	const struct verity_tree_read *busy = verity_busy_tree_read(q, off);
	struct verity_tree_read *r;
	uint64_t end = off + len;
	int ret;

	if (busy) {
		for (unsigned i = 0; i < io->waits; i++)
			if (io->wait_ids[i] == busy->id)
				return;	/* waits for it already */
		io->wait_ids[io->waits++] = busy->id;
		io->pending++;
		return;
	}
	for (uint64_t b = off + (1U << vt->log_tree_bs); b < end;
	     b += 1U << vt->log_tree_bs) {
		if (verity_busy_tree_read(q, b) ||
		    merkle_tree_cached(vt->tree, b)) {
			end = b;
			break;
		}
	}
	r = &io->reads[io->nreads++];
	*r = (struct verity_tree_read){
		.bio = {
			.req = { .op = VUBLK_OP_READ,
				 .offset = vt->tree_pos + off,
				 .len = (uint32_t)(end - off),
				 .buf = io->tbuf + io->tbuf_used },
			.end_io = verity_tree_read_end,
		},
		.io = io,
		.off = off,
		.id = ++vq->next_read_id,
		.busy = true,
	};
	io->tbuf_used += r->bio.req.len;
	verity_count_tree_read(vt, io, off, r->bio.req.len);
	io->pending++;
	ret = vublk_backend_submit(vt->tree_be, q, &r->bio);
	if (ret != VUBLK_IO_QUEUED)
		verity_tree_read_end(q, &r->bio, ret);
}

/* A new round of tree reads: none of io's own is in flight. */
static int verity_tree_round(struct verity_io *io, size_t bytes)
{
	io->nreads = 0;
	io->waits = 0;
	io->tbuf_used = 0;
	return verity_reserve(&io->tbuf, &io->tbuf_size, bytes);
}

/* ---- verification ---- */

/*
 * The image holds zeroes between data_size and the tree, but the kernel
 * does not trust the bytes past i_size either: it zeroes the tail of the
 * last page before verifying it (the filesystems' read paths do, e.g.
 * f2fs_read_single_page()'s zero_user_segment()).
 */
static void verity_zero_tail(const struct verity_tgt *vt, struct verity_io *io)
{
	uint64_t start = verity_data_pos(vt, io);
	uint64_t end = io->end_block << vt->log_bs;
	uint64_t size = vt->img.layout.data_size;

	if (end > size)
		memset(io->data + (size - start), 0, end - size);
}

/*
 * The verifier lacks a hash block: read what it asked for and resume at
 * the first block not yet verified.  Each round brings a hash block the
 * request needs, so more rounds than it can need at all means the cache
 * keeps evicting them before use: fail rather than spin.
 */
static void verity_read_missing(struct vublk_queue *q, struct verity_io *io,
				const struct merkle_verify_result *res)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_queue *vq = q->priv;
	int err;

	io->next_block = res->block;
	/* Verified in a batch: a request before it in the batch may have
	 * read the block since (a synchronous backend answers at once). */
	if (merkle_tree_cached(vt->tree, res->missing.off)) {
		vq->ready[vq->nready++] = io;
		return;
	}
	if (++io->rounds > 2 * verity_max_tree_blocks(q->tgt) + 8) {
		verity_read_fail(q, io, "hash blocks evicted before use",
				 -ENOBUFS);
		return;
	}
	err = verity_tree_round(io, res->missing.len);
	if (err) {
		verity_read_fail(q, io, "no memory for a tree read", err);
		return;
	}
	io->pending = 1;
	verity_read_tree_range(q, io, res->missing.off, res->missing.len);
	verity_read_put(q, io);
}

/* --check-at-most-once: whether data block b was verified once. */
static bool verity_checked(const struct verity_tgt *vt, uint64_t b)
{
	return vt->checked && b < vt->img.geometry.data_blocks &&
	       (atomic_load_explicit(&vt->checked[b / 64],
				     memory_order_relaxed) >> (b % 64) & 1);
}

static bool verity_is_zero(const uint8_t *p, size_t n)
{
	return !p[0] && !memcmp(p, p + 1, n - 1);
}

/*
 * ... and mark io's data blocks [b, end) verified.  Not, with
 * --ignore-zero-blocks, one that holds zeroes: dm-verity never marks a
 * block whose expected hash is that of zeroes (verity_verify_io() zeroes
 * it without looking at it, every time), so changed later it still reads
 * as zeroes.  A block of zeroes passed verification exactly when its
 * expected hash is that of zeroes: lib/merkle did not hash it.
 */
static void verity_mark_checked(struct verity_tgt *vt,
				const struct verity_io *io, uint64_t b,
				uint64_t end)
{
	const size_t bs = (size_t)1 << vt->log_bs;

	if (!vt->checked)
		return;
	if (end > vt->img.geometry.data_blocks)
		end = vt->img.geometry.data_blocks;
	for (; b < end; b++) {
		if (vt->ignore_zero_blocks &&
		    verity_is_zero(io->data + ((b - io->first_block) <<
					       vt->log_bs), bs))
			continue;
		atomic_fetch_or_explicit(&vt->checked[b / 64],
					 1ull << (b % 64),
					 memory_order_relaxed);
	}
}

/* Go on verifying io after data block b, which is dealt with. */
static void verity_read_skip_block(struct vublk_queue *q,
				   struct verity_io *io, uint64_t b)
{
	struct verity_queue *vq = q->priv;

	io->next_block = b + 1;
	if (io->next_block >= io->end_block)
		verity_read_finish(q, io, 0);
	else
		vq->ready[vq->nready++] = io;
}

/*
 * Data block b failed verification.  As dm-verity's verity_handle_err()
 * and its options: a block verified before (--check-at-most-once) is
 * not checked again; otherwise it is reported, and the request fails
 * unless --on-corruption=log serves it anyway.
 */
static void verity_read_corrupt(struct vublk_queue *q, struct verity_io *io,
				uint64_t b)
{
	struct verity_tgt *vt = q->tgt->priv;

	if (verity_checked(vt, b)) {
		verity_read_skip_block(q, io, b);
		return;
	}
	verity_report_corruption(q, b, &io->req);
	if (vt->on_corruption != VERITY_CORRUPT_LOG) {
		verity_read_finish(q, io, -EIO);
		return;
	}
	verity_count(&vt->counters.corrupt_served, 1);
	verity_read_skip_block(q, io, b);
}

/* --ignore-zero-blocks: block b is expected to be zeroes; it reads so. */
static void verity_read_zero_block(struct vublk_queue *q,
				   struct verity_io *io, uint64_t b)
{
	struct verity_tgt *vt = q->tgt->priv;

	memset(io->data + ((b - io->first_block) << vt->log_bs), 0,
	       1u << vt->log_bs);
	verity_count(&vt->counters.zero_blocks, 1);
	verity_read_skip_block(q, io, b);
}

/* What verification said of io: done, missing tree bytes, or a failure. */
static void verity_read_verified(struct vublk_queue *q, struct verity_io *io,
				 const struct merkle_verify_req *req)
{
	verity_mark_checked(q->tgt->priv, io, req->first_block,
			    req->res.block);
	if (!req->status) {
		verity_read_finish(q, io, 0);
	} else if (req->status == MERKLE_NEED_TREE) {
		verity_read_missing(q, io, &req->res);
	} else if (req->status == MERKLE_ZERO_BLOCK) {
		verity_read_zero_block(q, io, req->res.block);
	} else if (req->status == MERKLE_E_CORRUPT) {
		verity_read_corrupt(q, io, req->res.block);
	} else {
		verity_read_fail(q, io, merkle_error_kind(req->status) ==
				 MERKLE_ERR_NOMEM ? "out of memory" :
				 "verification error", req->status);
	}
}

/* The ranges of b's requests, for one merkle_verify_many() call, so
 * that their blocks are hashed in groups across requests (or come with
 * their digests, read in place). */
static void verity_batch_ranges(struct vublk_queue *q, struct verity_batch *b)
{
	struct verity_tgt *vt = q->tgt->priv;
	const unsigned ds = vt->img.geometry.digest_size;

	for (unsigned i = 0; i < b->n; i++) {
		struct verity_io *io = b->ios[i];

		/* --check-at-most-once: blocks verified before are not. */
		while (io->next_block < io->end_block &&
		       verity_checked(vt, io->next_block))
			io->next_block++;
		verity_zero_tail(vt, io);
		b->reqs[i] = (struct merkle_verify_req){
			.first_block = io->next_block,
			.data = io->data + ((io->next_block - io->first_block)
					    << vt->log_bs),
			.nblocks = io->end_block - io->next_block,
			.ra_blocks = io->ra_blocks,
			.digests = io->have_digests ?
				   io->digests + (io->next_block -
						  io->first_block) * ds : NULL,
		};
	}
}

/* What merkle_verify_many() said of b's requests; b is free after. */
static void verity_batch_verified(struct vublk_queue *q,
				  struct verity_batch *b, int err)
{
	unsigned n = b->n;

	b->n = 0;
	for (unsigned i = 0; i < n; i++) {
		if (err)
			verity_read_fail(q, b->ios[i], "verification error",
					 err);
		else
			verity_read_verified(q, b->ios[i], &b->reqs[i]);
	}
}

/* --verify-thread: the thread is through with the batch. */
static void verity_worker_done(struct vublk_queue *q, int err)
{
	struct verity_queue *vq = q->priv;

	verity_batch_verified(q, &vq->handed, err);
}

/* --verify-thread: whether b is worth the hand-off (a wakeup each way):
 * a readahead-sized batch is; a few random reads are hashed sooner here
 * (docs/PERFORMANCE.md, "VM: a verify thread"). */
static bool verity_batch_for_worker(const struct verity_tgt *vt,
				    const struct verity_batch *b)
{
	uint64_t blocks = 0;

	for (unsigned i = 0; i < b->n; i++)
		blocks += b->reqs[i].nblocks;
	return blocks << vt->log_bs >= VERITY_WORKER_MIN_BYTES;
}

static void verity_read_data(struct vublk_queue *q, struct verity_io *io);

/* Blocks merkle_tree_copy_hash() takes per call here: enough for 16
 * lanes several times over, few enough for the stack. */
#define VERITY_IN_PLACE_CHUNK 64

/* The requests of a batch read in place, for verity_copy_in_place(), and
 * what it says: 0 or merkle_tree_copy_hash()'s error. */
struct verity_in_place {
	const struct verity_tgt *vt;
	struct verity_io *const *ios;
	unsigned n;
	int err;
};

/* Copy and hash the chunk's n blocks; each digest goes home. */
static int verity_copy_chunk(const struct verity_tgt *vt, uint8_t **dst,
			     const uint8_t **src, uint8_t **home, size_t n)
{
	const unsigned ds = vt->img.geometry.digest_size;
	uint8_t digests[VERITY_IN_PLACE_CHUNK * MERKLE_MAX_DIGEST_SIZE];
	int err = merkle_tree_copy_hash(vt->tree, dst, src, n, digests);

	for (size_t i = 0; i < n && !err; i++)
		memcpy(home[i], digests + i * ds, ds);
	return err;
}

/*
 * Under the backend's SIGBUS guard (vublk_backend_read_mapped()), which
 * may abandon it anywhere: every block of the requests that still have
 * theirs in the map, copied into their buffers and hashed in one pass,
 * VERITY_IN_PLACE_CHUNK at a time, so that single-block requests share
 * lanes.  No lock, no allocation.
 */
static void verity_copy_in_place(void *arg)
{
	struct verity_in_place *c = arg;
	const struct verity_tgt *vt = c->vt;
	const size_t bs = (size_t)1 << vt->log_bs;
	const unsigned ds = vt->img.geometry.digest_size;
	uint8_t *dst[VERITY_IN_PLACE_CHUNK], *home[VERITY_IN_PLACE_CHUNK];
	const uint8_t *src[VERITY_IN_PLACE_CHUNK];
	size_t n = 0;

	for (unsigned i = 0; i < c->n && !c->err; i++) {
		const struct verity_io *io = c->ios[i];
		uint64_t blocks = io->end_block - io->first_block;

		if (!io->src)
			continue;
		for (uint64_t k = 0; k < blocks && !c->err; k++) {
			dst[n] = io->data + k * bs;
			src[n] = io->src + k * bs;
			home[n] = io->digests + k * ds;
			if (++n == VERITY_IN_PLACE_CHUNK) {
				c->err = verity_copy_chunk(vt, dst, src, home,
							   n);
				n = 0;
			}
		}
	}
	if (n && !c->err)
		c->err = verity_copy_chunk(vt, dst, src, home, n);
}

/*
 * b's requests read in place get their data and digests now.  When a
 * load from the map faulted (the image truncated under the device, pmem
 * poison), or the copy failed otherwise, they leave the batch and read
 * the image as the others do: the read says which of them is at fault
 * (-EIO), and the rest come back ready.
 */
static void verity_batch_in_place(struct vublk_queue *q, struct verity_batch *b)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_in_place c = { .vt = vt, .ios = b->ios, .n = b->n };
	uint64_t blocks = 0;
	unsigned kept = 0;
	int err;

	for (unsigned i = 0; i < b->n; i++)
		if (b->ios[i]->src)
			blocks += b->ios[i]->end_block - b->ios[i]->first_block;
	if (!blocks)
		return;
	err = vublk_backend_read_mapped(vt->be, verity_copy_in_place, &c);
	if (!err)
		err = c.err;
	verity_count(err ? &vt->counters.in_place_faults :
		     &vt->counters.blocks_in_place, err ? 1 : blocks);
	for (unsigned i = 0; i < b->n; i++) {
		struct verity_io *io = b->ios[i];

		if (!io->src) {
			b->ios[kept++] = io;
			continue;
		}
		io->src = NULL;
		if (!err) {
			io->have_digests = true;
			b->ios[kept++] = io;
			continue;
		}
		io->pending = 1;
		verity_read_data(q, io);
		verity_read_put(q, io);
	}
	b->n = kept;
}

/*
 * The end of a pass over the queue's completions: verify every request
 * whose reads are in, together, here or (--verify-thread, a large batch)
 * on the queue's verify thread.  While that thread holds a batch, the
 * queue verifies the next one itself, so that two CPUs hash at once, as
 * dm-verity's workqueue runs several bios' verification side by side
 * (drivers/md/dm-verity-target.c: verity_end_io() queues each bio's
 * work on kverityd, which is not ordered).  What verification starts
 * (the tree bytes a request still lacks) may be answered at once by a
 * synchronous backend and make requests ready again: verify until none
 * is, so that no request is left waiting for a completion that will not
 * come.
 */
void verity_queue_batch_end(struct vublk_queue *q)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_queue *vq = q->priv;

	while (vq->nready) {
		struct verity_batch *b = &vq->own;

		memcpy(b->ios, vq->ready, vq->nready * sizeof(*b->ios));
		b->n = vq->nready;
		vq->nready = 0;
		if (vt->in_place)
			verity_batch_in_place(q, b);
		verity_batch_ranges(q, b);
		if (vq->worker && !vq->handed.n &&
		    verity_batch_for_worker(vt, b)) {
			/* Hand over the arrays; own gets the free pair. */
			struct verity_batch free_pair = vq->handed;

			vq->handed = *b;
			*b = free_pair;
			verity_worker_submit(vq->worker, vq->handed.reqs,
					     vq->handed.n);
			continue;
		}
		verity_batch_verified(q, b,
				      merkle_verify_many(vt->tree, b->reqs, b->n));
	}
}

/* ---- the start ---- */

static void verity_data_read_end(struct vublk_queue *q, struct vublk_bio *bio,
				 int res)
{
	struct verity_io *io = container_of(bio, struct verity_io, data_bio);

	if (res < 0)
		verity_read_error(io, "reading the image", res);
	verity_read_put(q, io);
}

/* --readahead=submission: every uncached hash block the request needs.
 * A plan cut short at VERITY_MAX_TREE_READS extents is completed by the
 * verifier's requests. */
static int verity_read_planned(struct vublk_queue *q, struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct merkle_extent plan[VERITY_MAX_TREE_READS];
	size_t total = 0;
	int n, err;

	n = merkle_plan_reads(vt->tree, io->first_block,
			      io->end_block - io->first_block, io->ra_blocks,
			      true, plan, VERITY_MAX_TREE_READS);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		total += plan[i].len;
	err = verity_tree_round(io, total);
	for (int i = 0; i < n && !err; i++)
		verity_read_tree_range(q, io, plan[i].off, plan[i].len);
	return err;
}

/*
 * Whether io's blocks can be taken straight from the backend's map (they
 * are there to read now: mapped_at()), to be copied and hashed at the end
 * of the pass (verity_batch_in_place()) instead of read now.  Not a
 * request that reaches the last, partial data block: the kernel zeroes
 * past i_size before hashing (verity_zero_tail()), and a block read in
 * place is hashed as it is.  Nor one larger than
 * VERITY_IN_PLACE_MAX_BYTES, which the read's copy costs less than it
 * saves (docs/PERFORMANCE.md, "Hashing while copying": random reads
 * per CPU second 1.24x at 8 KiB, 1.18x at 16 KiB, 1.01-1.02x at 32 and
 * 64 KiB, 0.94-0.97x at 128 KiB, and sequential 128 KiB 0.87-0.99x).
 */
static bool verity_take_from_map(struct verity_tgt *vt, struct verity_io *io)
{
	uint64_t pos = verity_data_pos(vt, io);
	uint64_t len = (io->end_block - io->first_block) << vt->log_bs;

	if (!vt->in_place || len > VERITY_IN_PLACE_MAX_BYTES ||
	    pos + len > vt->img.layout.data_size ||
	    verity_reserve(&io->digests, &io->digests_size,
			   (io->end_block - io->first_block) *
			   vt->img.geometry.digest_size))
		return false;
	io->src = vt->be->ops->mapped_at(vt->be, pos, (uint32_t)len);
	return io->src != NULL;
}

/* The request's blocks, its buffer, its readahead; counted by no one
 * else. */
static int verity_read_setup(struct verity_tgt *vt, struct verity_io *io,
			     const struct vublk_req *req)
{
	const uint64_t mask = (1ULL << vt->log_bs) - 1;
	int err;

	io->req = *req;
	io->src = NULL;
	io->have_digests = false;
	io->first_block = req->offset >> vt->log_bs;
	io->end_block = (req->offset + req->len + mask) >> vt->log_bs;
	io->next_block = io->first_block;
	io->rounds = 0;
	io->error = 0;
	io->nreads = 0;
	io->waits = 0;
	io->data = req->buf;
	if ((req->offset & mask) || (req->len & mask)) {
		err = verity_reserve(&io->bounce, &io->bounce_size,
				     (io->end_block - io->first_block) <<
				     vt->log_bs);
		if (err)
			return err;
		io->data = io->bounce;
	}
	/* fsverity_verify_bio(): read ahead up to 1/4 of the bio's size. */
	io->ra_blocks = (req->flags & VUBLK_REQ_READAHEAD) &&
			vt->readahead != VERITY_RA_OFF ?
			(unsigned)((io->end_block - io->first_block) / 4) : 0;
	return 0;
}

/* Read io's blocks into io->data, holding a reference of io. */
static void verity_read_data(struct vublk_queue *q, struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	const struct vublk_req *req = &io->req;
	int ret;

	io->data_bio = (struct vublk_bio){
		.req = { .op = VUBLK_OP_READ,
			 .offset = verity_data_pos(vt, io),
			 .len = (uint32_t)((io->end_block - io->first_block) <<
					   vt->log_bs),
			 .buf = io->data },
		.end_io = verity_data_read_end,
	};
	if (io->data == req->buf) {	/* not a bounce buffer */
		io->data_bio.req.flags = req->flags & VUBLK_REQ_REG_BUF;
		io->data_bio.req.buf_index = req->buf_index;
	}
	io->pending++;
	ret = vublk_backend_submit(vt->be, q, &io->data_bio);
	if (ret != VUBLK_IO_QUEUED)
		verity_data_read_end(q, &io->data_bio, ret);
}

/* The request is in flight (VUBLK_IO_QUEUED), or did not start (-errno). */
static int verity_read_start(struct vublk_queue *q, struct verity_io *io,
			     const struct vublk_req *req)
{
	struct verity_tgt *vt = q->tgt->priv;
	int err = verity_read_setup(vt, io, req);

	if (err)
		return err;
	io->pending = 1;	/* ours, while we issue the reads */
	if (vt->readahead == VERITY_RA_SUBMISSION) {
		err = verity_read_planned(q, io);
		if (err)
			verity_read_error(io, "planning the tree reads", err);
	}
	if (!verity_take_from_map(vt, io))
		verity_read_data(q, io);
	verity_read_put(q, io);
	return VUBLK_IO_QUEUED;
}

int verity_queue_io(struct vublk_queue *q, unsigned tag,
		    const struct vublk_req *req)
{
	switch (req->op) {
	case VUBLK_OP_READ:
		return verity_read_start(q, verity_io_of(q, tag), req);
	case VUBLK_OP_FLUSH:
		/* Nothing is ever written: nothing to flush. */
		return 0;
	default:
		/* The core refuses writes to a read-only device; this is
		 * the last line of defence: the image is never written. */
		return -EROFS;
	}
}
