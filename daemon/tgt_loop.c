// SPDX-License-Identifier: GPL-2.0-only
/*
 * tgt_loop.c - the loop target: the device is a file (or block device).
 *
 * Every request becomes asynchronous io_uring I/O on the backing fd, many
 * in flight per queue.  The op mapping follows the kernel's loop driver
 * (drivers/block/loop.c: do_req_filebacked()): FLUSH -> fdatasync,
 * DISCARD -> fallocate(PUNCH_HOLE), WRITE_ZEROES -> fallocate(ZERO_RANGE)
 * when REQ_NOUNMAP asks to keep the blocks allocated, else PUNCH_HOLE
 * (lo_fallocate(), always with FALLOC_FL_KEEP_SIZE).
 *
 * FUA writes carry RWF_DSYNC rather than a linked write + fdatasync pair:
 * one SQE, so a short write simply resubmits the rest with the same flag
 * (each part is durable when its CQE arrives), and there is no
 * -ECANCELED link half to unwind.  This is what the kernel does for a
 * write with IOCB_DSYNC (generic_write_sync() after the write).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

enum loop_io {
	LOOP_IO_RW,		/* read or write, maybe resubmitted */
	LOOP_IO_OTHER,		/* fsync / fallocate: 0 or -errno */
};

enum loop_opt {
	LOOP_OPT_DIRECT = 256,
	LOOP_OPT_BLOCK_SIZE,
};

struct loop_tgt {
	int fd;
	bool direct;		/* --direct: O_DIRECT, bypass the page cache */
	unsigned block_size;	/* --block-size, 0 = default */
};

/* Progress of one READ/WRITE, for resubmitting after a short transfer. */
struct loop_tag {
	struct vublk_req req;
	uint32_t done;
};

static const struct option loop_options[] = {
	{ "direct", no_argument, NULL, LOOP_OPT_DIRECT },
	{ "block-size", required_argument, NULL, LOOP_OPT_BLOCK_SIZE },
	{ NULL, 0, NULL, 0 },
};

static int loop_parse_opt(struct vublk_tgt *t, int opt, const char *arg)
{
	struct loop_tgt *lt = t->priv;
	uint64_t v;

	switch (opt) {
	case LOOP_OPT_DIRECT:
		lt->direct = true;
		return 0;
	case LOOP_OPT_BLOCK_SIZE:
		/* ublk_validate_params(): 512 .. PAGE_SIZE, a power of 2. */
		if (vublk_parse_u64("--block-size", arg, 512, 4096, &v) < 0)
			return -EINVAL;
		if (v & (v - 1)) {
			vublk_error("bad --block-size value '%s': expected 512, 1024, 2048 or 4096",
				    arg);
			return -EINVAL;
		}
		lt->block_size = v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int loop_open(struct vublk_tgt *t, struct loop_tgt *lt)
{
	int flags = O_CLOEXEC | (t->read_only ? O_RDONLY : O_RDWR) |
		    (lt->direct ? O_DIRECT : 0);

	lt->fd = open(t->backing_file, flags);
	if (lt->fd >= 0)
		return 0;
	if (errno == EROFS || errno == EACCES)
		vublk_error("cannot open backing file %s for writing: %s (use --read-only)",
			    t->backing_file, strerror(errno));
	else if (errno == EINVAL && lt->direct)
		vublk_error("cannot open backing file %s with O_DIRECT: its filesystem does not support it (drop --direct)",
			    t->backing_file);
	else
		vublk_error("cannot open backing file %s: %s", t->backing_file,
			    strerror(errno));
	return -errno;
}

static int loop_backing_size(struct vublk_tgt *t, int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		vublk_error("cannot stat backing file %s: %s",
			    t->backing_file, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, size) == 0)
		return 0;
	vublk_error("backing file %s is not a regular file or block device",
		    t->backing_file);
	return -EINVAL;
}

static int loop_init(struct vublk_tgt *t)
{
	struct loop_tgt *lt = t->priv;
	/* O_DIRECT needs offsets aligned to the backing's logical block;
	 * 4096 is safe on every filesystem. */
	unsigned bs = lt->block_size ? lt->block_size :
		      lt->direct ? 4096 : 512;
	unsigned shift = __builtin_ctz(bs);
	uint64_t size;
	int ret;

	ret = loop_open(t, lt);
	if (ret)
		return ret;
	ret = loop_backing_size(t, lt->fd, &size);
	if (!ret && size < bs) {
		vublk_error("backing file %s is too small: %llu bytes, less than one %u-byte block",
			    t->backing_file, (unsigned long long)size, bs);
		ret = -EINVAL;
	}
	if (ret) {
		close(lt->fd);
		return ret;
	}
	t->dev_size = size & ~(uint64_t)(bs - 1);
	t->logical_bs_shift = shift;
	t->physical_bs_shift = shift > 12 ? shift : 12;
	t->io_min_shift = shift;
	t->io_opt_shift = 12;
	/* The page cache (or the disk's cache under O_DIRECT). */
	t->volatile_cache = true;
	t->discard = !t->read_only;
	t->discard_granularity = bs > 4096 ? bs : 4096;
	return 0;
}

static void loop_deinit(struct vublk_tgt *t)
{
	struct loop_tgt *lt = t->priv;

	close(lt->fd);
}

static int loop_queue_init(struct vublk_queue *q)
{
	q->priv = calloc(q->depth, sizeof(struct loop_tag));
	return q->priv ? 0 : -ENOMEM;
}

static void loop_queue_deinit(struct vublk_queue *q)
{
	free(q->priv);
}

/* (Re)submit the rest of a READ/WRITE. */
static int loop_submit_rw(struct vublk_queue *q, unsigned tag)
{
	const struct loop_tgt *lt = q->tgt->priv;
	const struct loop_tag *lt_tag = (struct loop_tag *)q->priv + tag;
	const struct vublk_req *req = &lt_tag->req;
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);
	char *buf = (char *)req->buf + lt_tag->done;
	unsigned len = req->len - lt_tag->done;
	uint64_t off = req->offset + lt_tag->done;

	if (!sqe)
		return -EBUSY;
	if (req->op == VUBLK_OP_READ) {
		io_uring_prep_read(sqe, lt->fd, buf, len, off);
	} else {
		io_uring_prep_write(sqe, lt->fd, buf, len, off);
		if (req->flags & VUBLK_REQ_FUA)
			sqe->rw_flags = RWF_DSYNC;
	}
	sqe->user_data = vublk_tgt_user_data(tag, LOOP_IO_RW, 0);
	return 0;
}

static int loop_submit_other(struct vublk_queue *q, unsigned tag,
			     const struct vublk_req *req)
{
	const struct loop_tgt *lt = q->tgt->priv;
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);
	int mode = FALLOC_FL_KEEP_SIZE;

	if (!sqe)
		return -EBUSY;
	if (req->op == VUBLK_OP_FLUSH) {
		io_uring_prep_fsync(sqe, lt->fd, IORING_FSYNC_DATASYNC);
	} else {
		if (req->op == VUBLK_OP_WRITE_ZEROES &&
		    (req->flags & VUBLK_REQ_NOUNMAP))
			mode |= FALLOC_FL_ZERO_RANGE;
		else
			mode |= FALLOC_FL_PUNCH_HOLE;
		io_uring_prep_fallocate(sqe, lt->fd, mode, req->offset,
					req->len);
	}
	sqe->user_data = vublk_tgt_user_data(tag, LOOP_IO_OTHER, 0);
	return 0;
}

static int loop_queue_io(struct vublk_queue *q, unsigned tag,
			 const struct vublk_req *req)
{
	struct loop_tag *lt_tag = (struct loop_tag *)q->priv + tag;

	if (req->op != VUBLK_OP_READ && req->op != VUBLK_OP_WRITE)
		return loop_submit_other(q, tag, req);
	lt_tag->req = *req;
	lt_tag->done = 0;
	return loop_submit_rw(q, tag);
}

static void loop_rw_done(struct vublk_queue *q, unsigned tag, int res)
{
	struct loop_tag *lt_tag = (struct loop_tag *)q->priv + tag;
	int ret;

	/* 0 bytes = end of file: the backing shrank under us.  An error
	 * (-ENOSPC from a full filesystem, -EIO, ...) goes to the kernel as
	 * it is: ublk_drv ends the request with errno_to_blk_status(res),
	 * so a writer sees ENOSPC as ENOSPC.  A short transfer is continued
	 * below and never completed as done (RLIMIT_FSIZE shortens a write
	 * the same way: tests/daemon/test_loop.c). */
	if (res <= 0) {
		vublk_complete_io(q, tag, res < 0 ? res : -EIO);
		return;
	}
	lt_tag->done += res;
	if (lt_tag->done >= lt_tag->req.len) {
		vublk_complete_io(q, tag, lt_tag->req.len);
		return;
	}
	ret = loop_submit_rw(q, tag);	/* short: do the rest */
	if (ret < 0)
		vublk_complete_io(q, tag, ret);
}

static void loop_io_done(struct vublk_queue *q, unsigned tag,
			 const struct io_uring_cqe *cqe)
{
	if (vublk_ud_tgt_op(cqe->user_data) == LOOP_IO_RW)
		loop_rw_done(q, tag, cqe->res);
	else
		vublk_complete_io(q, tag, cqe->res < 0 ? cqe->res : 0);
}

const struct vublk_tgt_ops vublk_tgt_loop = {
	.name = "loop",
	.summary = "a file or block device as a block device",
	.usage =
		"  --direct           open the backing file with O_DIRECT (bypass the page cache;\n"
		"                     the logical block size then defaults to 4096)\n"
		"  --block-size N     logical block size: 512 (default), 1024, 2048 or 4096\n",
	.priv_size = sizeof(struct loop_tgt),
	.options = loop_options,
	.parse_opt = loop_parse_opt,
	.init = loop_init,
	.deinit = loop_deinit,
	.queue_init = loop_queue_init,
	.queue_deinit = loop_queue_deinit,
	.queue_io = loop_queue_io,
	.io_done = loop_io_done,
};
