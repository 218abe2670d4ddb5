// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_read.c - the verity target's read path, whatever the backend.
 *
 * A READ is fs/verity/verify.c: fsverity_verify_bio():
 *
 *  1. The Merkle blocks covering the request are read from the image by
 *     the backend (struct verity_backend: io_uring reads for --backend=file,
 *     copies out of a libpmem2 mapping for --backend=pmem), straight into
 *     the request buffer when the request is Merkle-block aligned, else
 *     into a bounce buffer that is verified whole and copied out (the
 *     kernel verifies whole blocks too: a page is never partly verified).
 *  2. With --readahead=submission, merkle_plan_reads() lists at once every
 *     uncached hash block the request needs, at every level, and the
 *     backend reads those along with the data.
 *  3. merkle_verify_blocks() checks the data.  A hash block it still lacks
 *     reaches the backend's read_tree: a synchronous backend copies it
 *     there and then, as the kernel's ->read_merkle_tree_page() returns a
 *     page; an asynchronous one records the extent and answers -EAGAIN
 *     instead of blocking the queue thread, reads it, and verification
 *     resumes from the first unverified block.  With
 *     --readahead=completion (the 2020 "implement readahead of Merkle tree
 *     pages" commit) such a level-0 miss of a readahead request brings up
 *     to a quarter of the request's size of following level-0 blocks along.
 *  4. One bad block fails the whole request with -EIO (verity_report.c).
 *
 * The data is always verified in the request's own buffer, never in place
 * in the image: what is verified is what the request returns, even if the
 * image changes meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "verity_private.h"

/* Buffers are aligned for O_DIRECT and grown in these steps. */
#define VERITY_BUF_ALIGN 4096
#define VERITY_BUF_STEP (64 * 1024)

/*
 * The request being verified on this thread.  merkle_tree_open() takes
 * one read callback for the whole tree, which all queues share; the
 * callback learns which request asks through this.
 */
static __thread struct verity_io *verity_current_io;

int verity_read_tree(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct verity_tgt *vt = ctx;
	struct verity_io *io = verity_current_io;

	if (!io)
		return -EIO;	/* only verity_verify() calls the verifier */
	return vt->backend->read_tree(vt, io, buf, len, off);
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

int verity_reserve(uint8_t **buf, size_t *size, size_t need)
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

uint64_t verity_data_pos(const struct verity_tgt *vt,
			 const struct verity_io *io)
{
	return io->first_block << vt->log_bs;
}

size_t verity_data_len(const struct verity_tgt *vt, const struct verity_io *io)
{
	return (size_t)(io->end_block - io->first_block) << vt->log_bs;
}

/* ---- tree reads: counting and planning, for every backend ---- */

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

void verity_count_tree_read(struct verity_tgt *vt, const struct verity_io *io,
			    uint64_t off, uint32_t len)
{
	uint64_t first = off >> vt->log_bs, count = len >> vt->log_bs;

	verity_count(&vt->counters.tree_reads, 1);
	verity_count(&vt->counters.tree_blocks_read, count);
	verity_count(&vt->counters.blocks_read_ahead,
		     verity_count_read_ahead(vt, io, first, count));
}

/* A plan that does not fit VERITY_MAX_TREE_READS is cut short; the
 * verifier asks for the rest through read_tree. */
int verity_plan_tree_reads(struct verity_tgt *vt, struct verity_io *io,
			   struct merkle_extent *plan)
{
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
	return err ? err : n;
}

/* ---- verification and completion ---- */

static void verity_finish(struct vublk_queue *q, unsigned tag,
			  struct verity_io *io, int res)
{
	const struct verity_tgt *vt = q->tgt->priv;

	if (vt->backend->release)
		vt->backend->release(q, io);
	if (res >= 0 && io->data != io->req.buf)
		memcpy(io->req.buf,
		       io->data + (io->req.offset - verity_data_pos(vt, io)),
		       io->req.len);
	vublk_complete_io(q, tag, res >= 0 ? (int)io->req.len : res);
}

void verity_fail_io(struct vublk_queue *q, unsigned tag, struct verity_io *io,
		    const char *what, int err)
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
	uint64_t start = verity_data_pos(vt, io);
	uint64_t end = io->end_block << vt->log_bs;
	uint64_t size = vt->img.layout.data_size;

	if (end > size)
		memset(io->data + (size - start), 0, end - size);
}

void verity_verify(struct vublk_queue *q, unsigned tag, struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	uint64_t bad = io->next_block;
	int err;

	verity_zero_tail(vt, io);
	verity_current_io = io;
	err = merkle_verify_blocks(vt->tree, io->next_block,
				   io->data + ((io->next_block -
						io->first_block) << vt->log_bs),
				   io->end_block - io->next_block,
				   io->ra_blocks, &bad);
	verity_current_io = NULL;
	/* On any error, blocks before 'bad' passed. */
	if (err == -EAGAIN || err == MERKLE_E_CORRUPT) {
		verity_count(&vt->counters.blocks_verified,
			     bad - io->next_block);
		io->next_block = bad;
	}
	if (!err) {
		verity_count(&vt->counters.blocks_verified,
			     io->end_block - io->next_block);
		verity_finish(q, tag, io, 0);
	} else if (err == -EAGAIN && vt->backend->fetch_tree) {
		vt->backend->fetch_tree(q, tag, io);
	} else if (err == MERKLE_E_CORRUPT) {
		verity_report_corruption(q, bad, &io->req);
		verity_finish(q, tag, io, -EIO);
	} else {
		/* -errno: the backend's read_tree failed (e.g. a fault in
		 * the mapping); else a MERKLE_E_* code. */
		verity_fail_io(q, tag, io, err > MERKLE_E_BAD_ALG ?
			       "reading the Merkle tree" : "verification error",
			       err);
	}
}

/* ---- a new request ---- */

static int verity_start_read(struct vublk_queue *q, unsigned tag,
			     const struct vublk_req *req)
{
	struct verity_tgt *vt = q->tgt->priv;
	struct verity_io *io = verity_io_of(q, tag);
	const uint64_t mask = (1ULL << vt->log_bs) - 1;
	int err;

	io->req = *req;
	io->first_block = req->offset >> vt->log_bs;
	io->end_block = (req->offset + req->len + mask) >> vt->log_bs;
	io->next_block = io->first_block;
	if ((req->offset & mask) || (req->len & mask)) {
		err = verity_reserve(&io->bounce, &io->bounce_size,
				     verity_data_len(vt, io));
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
	verity_count(&vt->counters.requests, 1);
	if (req->flags & VUBLK_REQ_READAHEAD)
		verity_count(&vt->counters.readahead_requests, 1);
	return vt->backend->read_data(q, tag, io);
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
