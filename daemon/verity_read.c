// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_read.c - the verity target's read path.
 *
 * A READ is fs/verity/verify.c: fsverity_verify_bio() made asynchronous:
 *
 *  1. The Merkle blocks covering the request are read from the image with
 *     IORING_OP_READ (reads[0]), straight into the request buffer when the
 *     request is Merkle-block aligned, else into a bounce buffer that is
 *     verified whole and copied out (the kernel verifies whole blocks too:
 *     a page is never partly verified).
 *  2. With --readahead=submission, merkle_plan_reads() lists at once every
 *     uncached hash block the request needs, at every level, and those
 *     reads go out together with the data read.
 *  3. Each tree read goes into the shared cache as it lands
 *     (merkle_cache_fill); when every read is in, merkle_verify_blocks()
 *     checks the data.  A hash block it still lacks reaches
 *     verity_read_tree(), which records the extent and answers -EAGAIN
 *     instead of blocking the queue thread: that extent is read through
 *     the same ring and verification resumes from the first unverified
 *     block.  With --readahead=completion (the
 *     2020 "implement readahead of Merkle tree pages" commit) such a
 *     level-0 miss of a readahead request brings up to a quarter of the
 *     request's size of following level-0 blocks along.
 *  4. One bad block fails the whole request with -EIO (verity_report.c).
 *
 * A hash block that another request of the queue is already reading is
 * waited for, not read again (verity_add_tree_range()).  Per request at
 * most VUBLK_TGT_SQES_PER_REQ reads are in flight; a plan with more
 * extents is read in rounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "verity_private.h"

/* Planned tree extents per request; more are fetched on demand. */
#define VERITY_MAX_TREE_READS 16
/* Buffers are aligned for O_DIRECT and grown in these steps. */
#define VERITY_BUF_ALIGN 4096
#define VERITY_BUF_STEP (64 * 1024)

enum verity_io_op {
	VERITY_IO_READ,		/* index: the slot in verity_io.reads */
};

/* One read from the image: the data (slot 0) or a tree extent. */
struct verity_read {
	uint8_t *buf;
	uint64_t pos;		/* byte offset in the image */
	uint32_t len;
	uint32_t done;		/* bytes read so far (short reads resume) */
	uint64_t tree_off;	/* tree reads: offset in the tree */
	uint64_t id;		/* tree reads: unique in the queue */
	bool submitted;		/* an SQE for the rest is in flight */
	bool finished;		/* read (and cached) or failed */
};

/* The state of one tag's request. */
struct verity_io {
	struct vublk_req req;
	uint64_t first_block;	/* Merkle blocks covering the request */
	uint64_t end_block;	/* exclusive */
	uint64_t next_block;	/* first block not yet verified */
	uint8_t *data;		/* the covering blocks: req.buf or bounce */
	unsigned ra_blocks;	/* level-0 readahead for the verifier */
	unsigned in_flight;	/* SQEs */
	unsigned rounds;	/* tree fetches on demand, for this request */
	int error;		/* first read error */
	unsigned nreads;	/* reads[0] data, [1, nreads) tree */
	struct verity_read reads[1 + VERITY_MAX_TREE_READS];
	/* Tree reads of other tags this request waits for (by id). */
	unsigned waits;
	uint64_t wait_ids[VERITY_MAX_TREE_READS];
	size_t tbuf_used;
	struct merkle_extent want;	/* set by verity_read_tree() */
	uint8_t *tbuf, *bounce;
	size_t tbuf_size, bounce_size;
};

/*
 * The request being verified on this thread.  merkle_tree_open() takes
 * one read callback for the whole tree, which all queues share; the
 * callback learns which request asks through this.
 */
static __thread struct verity_io *verity_current_io;

int verity_read_tree(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct verity_io *io = verity_current_io;

	(void)ctx;
	(void)buf;
	if (!io)
		return -EIO;	/* only verity_verify() calls the verifier */
	io->want = (struct merkle_extent){ .off = off, .len = (uint32_t)len };
	return -EAGAIN;
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

/* A queue's requests; only its own thread touches it. */
struct verity_queue {
	uint64_t next_read_id;
	struct verity_io ios[];		/* one per tag */
};

static struct verity_io *verity_io_of(struct vublk_queue *q, unsigned tag)
{
	return &((struct verity_queue *)q->priv)->ios[tag];
}

int verity_queue_init(struct vublk_queue *q)
{
	q->priv = calloc(1, sizeof(struct verity_queue) +
			    q->depth * sizeof(struct verity_io));
	return q->priv ? 0 : -ENOMEM;
}

void verity_queue_deinit(struct vublk_queue *q)
{
	for (unsigned tag = 0; tag < q->depth; tag++) {
		free(verity_io_of(q, tag)->tbuf);
		free(verity_io_of(q, tag)->bounce);
	}
	free(q->priv);
}

/* Make *buf hold need bytes; only while no read into it is in flight. */
static int verity_reserve(uint8_t **buf, size_t *size, size_t need)
{
	void *p;

	if (*size >= need)
		return 0;
	need = (need + VERITY_BUF_STEP - 1) / VERITY_BUF_STEP * VERITY_BUF_STEP;
	if (posix_memalign(&p, VERITY_BUF_ALIGN, need))
		return -ENOMEM;
	free(*buf);
	*buf = p;
	*size = need;
	return 0;
}

/* ---- reads ---- */

static void verity_submit(struct vublk_queue *q, unsigned tag,
			  struct verity_io *io, unsigned slot)
{
	const struct verity_tgt *vt = q->tgt->priv;
	struct verity_read *r = &io->reads[slot];
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);

	if (!sqe) {	/* impossible within VUBLK_TGT_SQES_PER_REQ */
		io->error = io->error ? io->error : -EBUSY;
		return;
	}
	io_uring_prep_read(sqe, vt->fd, r->buf + r->done, r->len - r->done,
			   r->pos + r->done);
	sqe->user_data = vublk_tgt_user_data(tag, VERITY_IO_READ, slot);
	r->submitted = true;
	io->in_flight++;
}

/* Submit what is not yet in flight, within the per-request SQE budget. */
static void verity_pump(struct vublk_queue *q, unsigned tag,
			struct verity_io *io)
{
	for (unsigned slot = 0; slot < io->nreads && !io->error; slot++) {
		struct verity_read *r = &io->reads[slot];

		if (io->in_flight >= VUBLK_TGT_SQES_PER_REQ)
			break;
		if (!r->submitted && !r->finished)
			verity_submit(q, tag, io, slot);
	}
}

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

/*
 * A tree read of another request of this queue, not finished, covering
 * tree offset off.  Like a locked page under read in the page cache: a
 * second reader waits for it instead of reading the block again
 * (sequential requests in flight together share their level-0 blocks).
 */
static const struct verity_read *verity_find_tree_read(struct vublk_queue *q,
						       uint64_t off)
{
	for (unsigned tag = 0; tag < q->depth; tag++) {
		const struct verity_io *io = verity_io_of(q, tag);

		for (unsigned slot = 1; slot < io->nreads; slot++) {
			const struct verity_read *r = &io->reads[slot];

			if (!r->finished && off >= r->tree_off &&
			    off - r->tree_off < r->len)
				return r;
		}
	}
	return NULL;
}

/* Make io wait for tree read id (once, however many of its extents that
 * read covers); false if io cannot wait for one more read. */
static bool verity_await(struct verity_io *io, uint64_t id)
{
	for (unsigned i = 0; i < io->waits; i++)
		if (io->wait_ids[i] == id)
			return true;
	if (io->waits == VERITY_MAX_TREE_READS)
		return false;
	io->wait_ids[io->waits++] = id;
	return true;
}

/* Queue a read of tree bytes [off, off + len) into the tag's tree buffer
 * (reserved by the caller) and count it. */
static void verity_queue_tree_read(struct vublk_queue *q, struct verity_io *io,
				   uint64_t off, uint32_t len)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_queue *vq = q->priv;
	uint64_t first = off >> vt->log_bs, count = len >> vt->log_bs;

	io->reads[io->nreads++] = (struct verity_read){
		.buf = io->tbuf + io->tbuf_used,
		.pos = vt->img.layout.tree_pos + off,
		.len = len,
		.tree_off = off,
		.id = ++vq->next_read_id,
	};
	io->tbuf_used += len;
	verity_count(&vt->counters.tree_reads, 1);
	verity_count(&vt->counters.tree_blocks_read, count);
	verity_count(&vt->counters.blocks_read_ahead,
		     verity_count_read_ahead(vt, io, first, count));
}

/*
 * Get tree bytes [off, off + len) into the cache for request io.  If a read
 * in flight already covers the first block, wait for it; else read up to
 * the first block that one covers.  Either way the rest of the range, which
 * is readahead or blocks some other request is reading, is left to the
 * verifier to ask for again: that keeps tree reads few and large, and no
 * hash block is read twice at once (like pages locked under read in the
 * page cache).  The caller reserved len bytes of tree buffer.
 */
static void verity_add_tree_range(struct vublk_queue *q, struct verity_io *io,
				  uint64_t off, uint32_t len)
{
	const struct verity_tgt *vt = q->tgt->priv;
	const struct verity_read *busy = verity_find_tree_read(q, off);
	uint64_t end = off + len;

	if (busy) {
		verity_await(io, busy->id);
		return;
	}
	for (uint64_t b = off + (1U << vt->log_bs); b < end;
	     b += 1U << vt->log_bs) {
		if (verity_find_tree_read(q, b)) {
			end = b;
			break;
		}
	}
	if (io->nreads <= VERITY_MAX_TREE_READS)
		verity_queue_tree_read(q, io, off, (uint32_t)(end - off));
}

/* Start a new round of tree reads (none in flight, none awaited). */
static void verity_reset_tree_reads(struct verity_io *io)
{
	io->nreads = 1;
	io->tbuf_used = 0;
	io->waits = 0;
}

/*
 * --readahead=submission: every uncached hash block the request needs, at
 * every level, read together with the data.  A plan that does not fit
 * VERITY_MAX_TREE_READS is cut short; verification fetches the rest.
 */
static int verity_plan_tree_reads(struct vublk_queue *q, struct verity_io *io)
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
	err = verity_reserve(&io->tbuf, &io->tbuf_size, total);
	if (err)
		return err;
	for (int i = 0; i < n; i++)
		verity_add_tree_range(q, io, plan[i].off, plan[i].len);
	return 0;
}

/* ---- verification and completion ---- */

static void verity_advance(struct vublk_queue *q, unsigned tag,
			   struct verity_io *io);

/* Tree read 'id' finished: the requests waiting for it may go on. */
static void verity_wake_waiters(struct vublk_queue *q, uint64_t id)
{
	for (unsigned tag = 0; tag < q->depth; tag++) {
		struct verity_io *io = verity_io_of(q, tag);

		for (unsigned i = 0; i < io->waits; i++) {
			if (io->wait_ids[i] != id)
				continue;
			io->wait_ids[i] = io->wait_ids[--io->waits];
			verity_advance(q, tag, io);
			break;
		}
	}
}

/*
 * A finished request must not leave reads that others wait for: reads
 * never submitted (an error stopped the pump) count as finished too.
 */
static void verity_release_tree_reads(struct vublk_queue *q,
				      struct verity_io *io)
{
	unsigned n = io->nreads;

	verity_reset_tree_reads(io);
	for (unsigned slot = 1; slot < n; slot++) {
		if (io->reads[slot].finished)
			continue;
		io->reads[slot].finished = true;
		verity_wake_waiters(q, io->reads[slot].id);
	}
}

static void verity_finish(struct vublk_queue *q, unsigned tag,
			  struct verity_io *io, int res)
{
	const struct verity_tgt *vt = q->tgt->priv;

	verity_release_tree_reads(q, io);
	if (res >= 0 && io->data != io->req.buf)
		memcpy(io->req.buf,
		       io->data + (io->req.offset -
				   (io->first_block << vt->log_bs)),
		       io->req.len);
	vublk_complete_io(q, tag, res >= 0 ? (int)io->req.len : res);
}

static void verity_fail_io(struct vublk_queue *q, unsigned tag,
			   struct verity_io *io, const char *what, int err)
{
	struct verity_tgt *vt = q->tgt->priv;

	verity_count(&vt->counters.io_errors, 1);
	vublk_error("device %u: read of %u bytes at byte %" PRIu64 " failed: %s: %s",
		    q->tgt->dev_id, io->req.len, io->req.offset, what,
		    merkle_strerror(err));
	verity_finish(q, tag, io, -EIO);
}

/*
 * The image holds zeroes between data_size and the tree, but the kernel
 * does not trust the bytes past i_size either: it zeroes the tail of the
 * last page before verifying it (the filesystems' read paths do, e.g.
 * f2fs_read_single_page()'s zero_user_segment()).
 */
static void verity_zero_tail(const struct verity_tgt *vt, struct verity_io *io)
{
	uint64_t start = io->first_block << vt->log_bs;
	uint64_t end = io->end_block << vt->log_bs;
	uint64_t size = vt->img.layout.data_size;

	if (end > size)
		memset(io->data + (size - start), 0, end - size);
}

/*
 * The verifier lacks a hash block: read it (and, in completion mode, the
 * level-0 blocks it asked to read ahead) and resume at the first block
 * not yet verified.  Each round brings at least one hash block the
 * request needs, so more rounds than it can need at all means the cache
 * keeps evicting them before use: fail rather than spin.
 */
static void verity_fetch_wanted(struct vublk_queue *q, unsigned tag,
				struct verity_io *io)
{
	int err;

	if (++io->rounds > 2 * verity_max_tree_blocks(q->tgt) + 8) {
		verity_fail_io(q, tag, io, "hash blocks evicted before use",
			       -ENOBUFS);
		return;
	}
	err = verity_reserve(&io->tbuf, &io->tbuf_size, io->want.len);
	if (err) {
		verity_fail_io(q, tag, io, "no memory for a tree read", err);
		return;
	}
	verity_add_tree_range(q, io, io->want.off, io->want.len);
	verity_advance(q, tag, io);
}

static void verity_verify(struct vublk_queue *q, unsigned tag,
			  struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	uint64_t bad = io->next_block;
	int err;

	verity_reset_tree_reads(io);
	verity_zero_tail(vt, io);
	io->want.len = 0;
	verity_current_io = io;
	err = merkle_verify_blocks(vt->tree, io->next_block,
				   io->data + ((io->next_block -
						io->first_block) << vt->log_bs),
				   io->end_block - io->next_block,
				   io->ra_blocks, &bad);
	verity_current_io = NULL;
	/* On -EAGAIN and on corruption, blocks before 'bad' passed. */
	if (err == -EAGAIN || err == MERKLE_E_CORRUPT) {
		verity_count(&vt->counters.blocks_verified,
			     bad - io->next_block);
		io->next_block = bad;
	}
	if (!err) {
		verity_count(&vt->counters.blocks_verified,
			     io->end_block - io->next_block);
		verity_finish(q, tag, io, 0);
	} else if (err == -EAGAIN && io->want.len) {
		verity_fetch_wanted(q, tag, io);
	} else if (err == MERKLE_E_CORRUPT) {
		verity_report_corruption(q, bad, &io->req);
		verity_finish(q, tag, io, -EIO);
	} else {
		verity_fail_io(q, tag, io, "verification error", err);
	}
}

/*
 * Submit what can go; once nothing is in flight or awaited, verify or
 * fail.  A tree read of another tag that failed only means its blocks are
 * not cached: the verifier asks for them again.
 */
static void verity_advance(struct vublk_queue *q, unsigned tag,
			   struct verity_io *io)
{
	verity_pump(q, tag, io);
	if (io->in_flight || io->waits)
		return;
	if (io->error)
		verity_fail_io(q, tag, io, "reading the image", io->error);
	else
		verity_verify(q, tag, io);
}

/* A tree read is in: cache it (unverified) and wake who waits for it. */
static void verity_tree_read_done(struct vublk_queue *q, struct verity_io *io,
				  struct verity_read *r)
{
	struct verity_tgt *vt = q->tgt->priv;
	int err;

	r->finished = true;
	err = merkle_cache_fill(vt->tree, r->tree_off, r->buf, r->len);
	if (err && !io->error)
		io->error = err;
	verity_wake_waiters(q, r->id);
}

void verity_io_done(struct vublk_queue *q, unsigned tag,
		    const struct io_uring_cqe *cqe)
{
	struct verity_io *io = verity_io_of(q, tag);
	unsigned slot = vublk_ud_index(cqe->user_data);
	struct verity_read *r = &io->reads[slot];

	io->in_flight--;
	r->submitted = false;
	if (cqe->res > 0) {
		r->done += (uint32_t)cqe->res;	/* short: pump reads the rest */
	} else {	/* 0: the image ends early (truncated) */
		if (!io->error)
			io->error = cqe->res < 0 ? cqe->res : -ENODATA;
		r->finished = true;
	}
	if (r->done == r->len && !r->finished) {
		if (slot)
			verity_tree_read_done(q, io, r);
		else
			r->finished = true;
	}
	if (slot && r->finished && cqe->res <= 0)
		verity_wake_waiters(q, r->id);
	verity_advance(q, tag, io);
}

/* ---- a new request ---- */

static int verity_start_read(struct vublk_queue *q, unsigned tag,
			     const struct vublk_req *req)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_io *io = verity_io_of(q, tag);
	const uint64_t mask = (1ULL << vt->log_bs) - 1;
	size_t data_len;
	int err;

	io->req = *req;
	io->first_block = req->offset >> vt->log_bs;
	io->end_block = (req->offset + req->len + mask) >> vt->log_bs;
	io->next_block = io->first_block;
	io->in_flight = 0;
	io->rounds = 0;
	io->error = 0;
	data_len = (io->end_block - io->first_block) << vt->log_bs;
	if ((req->offset & mask) || (req->len & mask)) {
		err = verity_reserve(&io->bounce, &io->bounce_size, data_len);
		if (err)
			return err;
		io->data = io->bounce;
	} else {
		io->data = req->buf;
	}
	/* fsverity_verify_bio(): read ahead up to 1/4 of the bio's size. */
	io->ra_blocks = (req->flags & VUBLK_REQ_READAHEAD) &&
			vt->readahead != VERITY_RA_OFF ?
			(unsigned)((io->end_block - io->first_block) / 4) : 0;
	io->reads[0] = (struct verity_read){
		.buf = io->data,
		.pos = io->first_block << vt->log_bs,
		.len = (uint32_t)data_len,
	};
	verity_reset_tree_reads(io);
	if (vt->readahead == VERITY_RA_SUBMISSION) {
		err = verity_plan_tree_reads(q, io);
		if (err) {
			verity_release_tree_reads(q, io);
			return err == MERKLE_E_NOMEM ? -ENOMEM : -EIO;
		}
	}
	verity_count(&vt->counters.requests, 1);
	if (req->flags & VUBLK_REQ_READAHEAD)
		verity_count(&vt->counters.readahead_requests, 1);
	verity_advance(q, tag, io);
	return 0;
}

int verity_queue_io(struct vublk_queue *q, unsigned tag,
		    const struct vublk_req *req)
{
	switch (req->op) {
	case VUBLK_OP_READ:
		return verity_start_read(q, tag, req);
	case VUBLK_OP_FLUSH:
		/* Nothing is ever written: nothing to flush. */
		vublk_complete_io(q, tag, 0);
		return 0;
	default:
		/* The core refuses writes to a read-only device; this is
		 * the last line of defence: the image is never written. */
		return -EROFS;
	}
}
