// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_read_pmem.c - --backend=pmem: the verity target reads its image
 * out of a libpmem2 mapping (lib/pmem), synchronously.
 *
 * Like the kernel's pmem driver (drivers/nvdimm/pmem.c: pmem_submit_bio()
 * copies in the submitting context), a read here is a memory copy done in
 * queue_io, and the request completes there: no io_uring round trip, no
 * io_done.  The read path (verity_read.c) is the same as with the file
 * backend; only the reads differ:
 *
 *  - The covering data blocks are copied into the request buffer (or the
 *    bounce buffer) with pmem_read() and verified THERE, never in place
 *    in the mapping: a store into the image after verification cannot
 *    reach the request (on a DAX file the mapping is the media itself).
 *  - A "tree read" is one pmem_read() of a tree extent: planned ones
 *    (--readahead=submission) into the tag's tree buffer and then the
 *    cache, missing ones straight into the buffer the verifier gives
 *    read_tree.  They are counted like the file backend's reads, so
 *    tree_reads is the number of copies and tree_blocks_read their size.
 *  - A copy that faults (poison, or the image truncated under the device:
 *    SIGBUS, which lib/pmem turns into -EIO) or touches a known bad block
 *    fails the request with -EIO; nothing unverified is ever returned.
 *
 * The image's metadata is still read through vt->fd (lib/f2fslayout reads
 * from a file descriptor); the mapping must then cover the whole image.
 */
#include <errno.h>
#include <inttypes.h>

#include "pmem.h"
#include "verity_private.h"

static int verity_pmem_open(struct vublk_tgt *t, struct verity_tgt *vt)
{
	char errbuf[PMEM_ERRBUF_SIZE];
	uint64_t want = vt->img.layout.image_size;
	int err;

	if (vt->direct) {
		vublk_error("--direct asks for O_DIRECT reads of %s, which --backend=pmem does not make: it copies out of a mapping (drop --direct)",
			    t->backing_file);
		return -EINVAL;
	}
	err = pmem_open(t->backing_file, PMEM_OPEN_READONLY, &vt->pmem,
			errbuf);
	if (err) {
		vublk_error("%s", errbuf);
		return err;
	}
	/* pmem_read()'s range contract: every read must lie in the mapping. */
	if (pmem_size(vt->pmem) == want)
		return 0;
	vublk_error("verity image %s is %" PRIu64 " bytes now, %" PRIu64 " when its metadata was read: it changed while being opened (retry once nothing writes it)",
		    t->backing_file, pmem_size(vt->pmem), want);
	pmem_close(vt->pmem);
	vt->pmem = NULL;
	return -EINVAL;
}

static void verity_pmem_close(struct verity_tgt *vt)
{
	if (vt->pmem)
		pmem_close(vt->pmem);
}

/* One tree read: tree bytes [off, off + len) copied into buf. */
static int verity_pmem_read_tree(struct verity_tgt *vt, struct verity_io *io,
				 void *buf, size_t len, uint64_t off)
{
	verity_count_tree_read(vt, io, off, (uint32_t)len);
	return pmem_read(vt->pmem, buf, vt->img.layout.tree_pos + off, len);
}

/* --readahead=submission: copy the planned extents into the cache before
 * verifying, as the file backend reads them along with the data. */
static int verity_pmem_read_planned(struct verity_tgt *vt,
				    struct verity_io *io)
{
	struct merkle_extent plan[VERITY_MAX_TREE_READS];
	int n = verity_plan_tree_reads(vt, io, plan), err = 0;

	for (int i = 0; i < n && !err; i++) {
		err = verity_pmem_read_tree(vt, io, io->tbuf, plan[i].len,
					    plan[i].off);
		if (!err)
			err = merkle_cache_fill(vt->tree, plan[i].off, io->tbuf,
						plan[i].len);
	}
	return n < 0 ? n : err;
}

static int verity_pmem_read_data(struct vublk_queue *q, unsigned tag,
				 struct verity_io *io)
{
	struct verity_tgt *vt = q->tgt->priv;
	int err = pmem_read(vt->pmem, io->data, verity_data_pos(vt, io),
			    verity_data_len(vt, io));

	if (err) {
		verity_fail_io(q, tag, io, "reading the image", err);
		return 0;
	}
	if (vt->readahead == VERITY_RA_SUBMISSION) {
		err = verity_pmem_read_planned(vt, io);
		if (err) {
			verity_fail_io(q, tag, io, "reading the Merkle tree",
				       err);
			return 0;
		}
	}
	verity_verify(q, tag, io);
	return 0;
}

const struct verity_backend verity_backend_pmem = {
	.open = verity_pmem_open,
	.close = verity_pmem_close,
	.read_data = verity_pmem_read_data,
	.read_tree = verity_pmem_read_tree,
};
