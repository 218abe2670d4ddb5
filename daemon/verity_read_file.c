// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_read_file.c - --backend=file (the default): the verity target
 * reads its image with io_uring, asynchronously.
 *
 *  - The covering data blocks are one IORING_OP_READ (reads[0]); with
 *    --readahead=submission the planned tree extents go out with it.
 *  - Each tree read goes into the shared cache as it lands
 *    (merkle_cache_fill); when every read is in, verity_verify() runs.
 *  - A hash block the verifier still lacks reaches read_tree, which
 *    records the extent and answers -EAGAIN: fetch_tree reads it through
 *    the same ring and verification resumes.  A queue thread never blocks
 *    on I/O.
 *  - A hash block that another request of the queue is already reading is
 *    waited for, not read again (verity_add_tree_range()).  Per request at
 *    most VUBLK_TGT_SQES_PER_REQ reads are in flight; a plan with more
 *    extents is read in rounds.
 *  - Short reads are resumed; a read of 0 bytes means the image shrank
 *    under the device: the request fails with -EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "verity_private.h"

enum verity_io_op {
	VERITY_IO_READ,		/* index: the slot in verity_io.reads */
};

/*
 * --direct: the data and tree reads bypass the page cache.  Set only now,
 * after the metadata was read: its reads (the 64-byte trailer) are
 * unaligned.  O_DIRECT needs block-aligned reads, hence 4 KiB Merkle blocks.
 */
static int verity_file_open(struct vublk_tgt *t, struct verity_tgt *vt)
{
	int flags;

	if (!vt->direct)
		return 0;
	if (vt->log_bs < 12) {
		vublk_error("verity image %s has %u-byte Merkle blocks: --direct needs at least 4096 (drop --direct)",
			    t->backing_file, 1U << vt->log_bs);
		return -EINVAL;
	}
	flags = fcntl(vt->fd, F_GETFL);
	if (flags >= 0 && fcntl(vt->fd, F_SETFL, flags | O_DIRECT) == 0)
		return 0;
	vublk_error("cannot read verity image %s with O_DIRECT: %s (drop --direct)",
		    t->backing_file, strerror(errno));
	return -errno;
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

	io->reads[io->nreads++] = (struct verity_read){
		.buf = io->tbuf + io->tbuf_used,
		.pos = vt->img.layout.tree_pos + off,
		.len = len,
		.tree_off = off,
		.id = ++vq->next_read_id,
	};
	io->tbuf_used += len;
	verity_count_tree_read(vt, io, off, len);
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

/* ---- completion of reads ---- */

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
	verity_reset_tree_reads(io);
	err = verity_reserve(&io->tbuf, &io->tbuf_size, io->want.len);
	if (err) {
		verity_fail_io(q, tag, io, "no memory for a tree read", err);
		return;
	}
	verity_add_tree_range(q, io, io->want.off, io->want.len);
	verity_advance(q, tag, io);
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

/* ---- the backend ---- */

static int verity_file_read_data(struct vublk_queue *q, unsigned tag,
				 struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct merkle_extent plan[VERITY_MAX_TREE_READS];
	int n;

	io->in_flight = 0;
	io->rounds = 0;
	io->error = 0;
	io->reads[0] = (struct verity_read){
		.buf = io->data,
		.pos = verity_data_pos(vt, io),
		.len = (uint32_t)verity_data_len(vt, io),
	};
	verity_reset_tree_reads(io);
	if (vt->readahead == VERITY_RA_SUBMISSION) {
		n = verity_plan_tree_reads(vt, io, plan);
		if (n < 0)
			return n == MERKLE_E_NOMEM || n == -ENOMEM ? -ENOMEM :
			       -EIO;
		for (int i = 0; i < n; i++)
			verity_add_tree_range(q, io, plan[i].off, plan[i].len);
	}
	verity_advance(q, tag, io);
	return 0;
}

/* Not now: fetch_tree reads the extent through the ring. */
static int verity_file_read_tree(struct verity_tgt *vt, struct verity_io *io,
				 void *buf, size_t len, uint64_t off)
{
	(void)vt;
	(void)buf;
	io->want = (struct merkle_extent){ .off = off, .len = (uint32_t)len };
	return -EAGAIN;
}

const struct verity_backend verity_backend_file = {
	.open = verity_file_open,
	.read_data = verity_file_read_data,
	.read_tree = verity_file_read_tree,
	.fetch_tree = verity_fetch_wanted,
	.release = verity_release_tree_reads,
};
