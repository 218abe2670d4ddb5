// SPDX-License-Identifier: GPL-2.0-only
/*
 * file.c - the "file" backend: a file or block device through the queue's
 * io_uring, many bios in flight per queue.
 *
 * The op mapping follows the kernel's loop driver (drivers/block/loop.c:
 * do_req_filebacked()): FLUSH -> fdatasync, DISCARD -> fallocate
 * (PUNCH_HOLE), WRITE_ZEROES -> fallocate(ZERO_RANGE) when REQ_NOUNMAP
 * asks to keep the blocks allocated, else PUNCH_HOLE (lo_fallocate(),
 * always with FALLOC_FL_KEEP_SIZE).
 *
 * FUA writes carry RWF_DSYNC rather than a linked write + fdatasync pair:
 * one SQE, so a short write simply resubmits the rest with the same flag
 * (each part is durable when its CQE arrives), and there is no
 * -ECANCELED link half to unwind.  This is what the kernel does for a
 * write with IOCB_DSYNC (generic_write_sync() after the write).
 *
 * A short transfer is continued, never completed as done; a read or write
 * of 0 bytes means the store ended early (shrank under the device): -EIO.
 * An error goes to the submitter as it is (-ENOSPC from a full filesystem
 * reaches a writer as ENOSPC: ublk_drv ends the request with
 * errno_to_blk_status(res)).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "file_map.h"
#include "openinput.h"

struct file_backend {
	int fd;
	struct file_map map;	/* file_map_store() */
};

static int file_open_fd(struct vublk_backend *be, struct file_backend *fb)
{
	bool ro = be->flags & VUBLK_BACKEND_READ_ONLY;
	bool direct = be->flags & VUBLK_BACKEND_DIRECT;
	int err;

	/* A FIFO opens at once (openinput.h) and file_size() refuses it. */
	fb->fd = open_input(be->path, (ro ? O_RDONLY : O_RDWR) |
					 (direct ? O_DIRECT : 0));
	if (fb->fd >= 0)
		return 0;
	err = -fb->fd;
	fb->fd = -1;
	if (!ro && (err == EROFS || err == EACCES))
		vublk_error("cannot open backing file %s for writing: %s (use --read-only)",
			    be->path, strerror(err));
	else if (err == ENOENT && strstr(be->path, "://"))
		vublk_error("cannot open backing file %s: no such file, and not a URI vublk serves (NBD: nbd://, nbds://, nbd+unix://...; nbdkit serves HTTP and more as NBD)",
			    be->path);
	else if (err == EINVAL && direct)
		vublk_error("cannot open backing file %s with O_DIRECT: its filesystem does not support it (drop --direct)",
			    be->path);
	else
		vublk_error("cannot open backing file %s: %s", be->path,
			    strerror(err));
	return -err;
}

static int file_size(struct vublk_backend *be, int fd)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;	/* vublk_error() may change errno */
		vublk_error("cannot stat backing file %s: %s", be->path,
			    strerror(err));
		return -err;
	}
	if (S_ISREG(st.st_mode)) {
		be->size = st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &be->size) == 0)
		return 0;
	vublk_error("backing file %s is not a regular file or block device",
		    be->path);
	return -EINVAL;
}

/*
 * The memory alignment O_DIRECT needs, as the file's filesystem or block
 * device reports it (statx STATX_DIOALIGN, Linux 6.1); a page where it
 * says nothing, which is always enough.  Buffered I/O needs none.
 */
static uint32_t file_mem_align(const struct vublk_backend *be, int fd)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	struct statx stx;

	if (!(be->flags & VUBLK_BACKEND_DIRECT))
		return 1;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) < 0 ||
	    !(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_mem_align ||
	    stx.stx_dio_mem_align > page ||
	    (stx.stx_dio_mem_align & (stx.stx_dio_mem_align - 1)))
		return page;
	return stx.stx_dio_mem_align;
}

static int file_open(struct vublk_backend *be)
{
	struct file_backend *fb = be->priv;
	int ret = file_open_fd(be, fb);

	if (ret)
		return ret;
	ret = file_size(be, fb->fd);
	if (ret) {
		close(fb->fd);
		return ret;
	}
	/* O_DIRECT needs offsets aligned to the backing's logical block;
	 * 4096 is safe on every filesystem. */
	be->block_shift = be->flags & VUBLK_BACKEND_DIRECT ? 12 : 9;
	be->io_min_shift = be->block_shift;
	be->mem_align = file_mem_align(be, fb->fd);
	be->pins_buffers = be->flags & VUBLK_BACKEND_DIRECT;
	/* The page cache (or the disk's cache under O_DIRECT). */
	be->volatile_cache = true;
	return 0;
}

/* Read in place (backend.h: map): a read-only store, through the page
 * cache. */
static void file_map_store(struct vublk_backend *be)
{
	struct file_backend *fb = be->priv;

	if (!(be->flags & VUBLK_BACKEND_READ_ONLY) ||
	    (be->flags & VUBLK_BACKEND_DIRECT))
		return;
	file_map_open(&fb->map, fb->fd, be->path, be->size);
	be->map = fb->map.addr;
	be->map_len = fb->map.len;
}

static const uint8_t *file_mapped_at(struct vublk_backend *be, uint64_t pos,
				     uint32_t len)
{
	return file_map_at(&((struct file_backend *)be->priv)->map, pos, len);
}

/* The file grew or shrank (vublk update-size). */
static int file_refresh_size(struct vublk_backend *be)
{
	const struct file_backend *fb = be->priv;

	return file_size(be, fb->fd);
}

static void file_close(struct vublk_backend *be)
{
	struct file_backend *fb = be->priv;

	file_map_close(&fb->map);
	close(fb->fd);
}

/* Main thread, before any queue: plain pread; 0 bytes is the end. */
static int file_read_sync(struct vublk_backend *be, void *buf, size_t len,
			  uint64_t pos)
{
	const struct file_backend *fb = be->priv;
	char *p = buf;

	while (len) {
		ssize_t n = pread(fb->fd, p, len, (off_t)pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		pos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void file_bio_done(struct vublk_queue *q, struct vublk_ring_event *ev,
			  const struct io_uring_cqe *cqe);

/* (Re)submit the rest of a READ or WRITE. */
static void file_submit_rw(struct vublk_queue *q, struct vublk_bio *bio)
{
	const struct file_backend *fb = bio->be->priv;
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);
	unsigned len = bio->req.len - bio->done;
	uint64_t pos = bio->req.offset + bio->done;
	bool read = bio->req.op == VUBLK_OP_READ;

	if (bio->req.flags & (VUBLK_REQ_FIXED_BUF | VUBLK_REQ_REG_BUF)) {
		/* A registered buffer: the request's own pages (zero copy)
		 * are addressed from 0 (io_uring rsrc.c: a kernel buffer's
		 * ubuf is 0), our registered buffers at their address. */
		uintptr_t base = bio->req.flags & VUBLK_REQ_FIXED_BUF ?
				 0 : (uintptr_t)bio->req.buf;
		void *at = (void *)(base + bio->done);

		if (read)
			io_uring_prep_read_fixed(sqe, fb->fd, at, len, pos,
						 (int)bio->req.buf_index);
		else
			io_uring_prep_write_fixed(sqe, fb->fd, at, len, pos,
						  (int)bio->req.buf_index);
	} else if (read) {
		io_uring_prep_read(sqe, fb->fd,
				   (char *)bio->req.buf + bio->done, len, pos);
	} else {
		io_uring_prep_write(sqe, fb->fd,
				    (char *)bio->req.buf + bio->done, len, pos);
	}
	vublk_sqe_use_fixed_file(q, sqe, fb->fd);
	if (!read && (bio->req.flags & VUBLK_REQ_FUA))
		sqe->rw_flags = RWF_DSYNC;
	vublk_sqe_set_event(sqe, &bio->ev);
}

static void file_submit_other(struct vublk_queue *q, struct vublk_bio *bio)
{
	const struct file_backend *fb = bio->be->priv;
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);
	int mode = FALLOC_FL_KEEP_SIZE;

	if (bio->req.op == VUBLK_OP_FLUSH) {
		io_uring_prep_fsync(sqe, fb->fd, IORING_FSYNC_DATASYNC);
	} else {
		if (bio->req.op == VUBLK_OP_WRITE_ZEROES &&
		    (bio->req.flags & VUBLK_REQ_NOUNMAP))
			mode |= FALLOC_FL_ZERO_RANGE;
		else
			mode |= FALLOC_FL_PUNCH_HOLE;
		io_uring_prep_fallocate(sqe, fb->fd, mode, bio->req.offset,
					bio->req.len);
	}
	vublk_sqe_use_fixed_file(q, sqe, fb->fd);
	vublk_sqe_set_event(sqe, &bio->ev);
}

/* The file in the queue's ring: no file reference taken per request.
 * Optional: a ring that cannot register it uses the fd. */
static int file_queue_init(struct vublk_backend *be, struct vublk_queue *q)
{
	const struct file_backend *fb = be->priv;
	int ret = vublk_queue_register_file(q, fb->fd);

	if (ret)
		vublk_info("queue %u: backing file %s not registered in the ring (%s): using its fd",
			    q->q_id, be->path, strerror(-ret));
	return 0;
}

static int file_submit(struct vublk_backend *be, struct vublk_queue *q,
		       struct vublk_bio *bio)
{
	bio->be = be;
	bio->done = 0;
	bio->ev.done = file_bio_done;
	if (vublk_req_has_data(&bio->req))
		file_submit_rw(q, bio);
	else
		file_submit_other(q, bio);
	return VUBLK_IO_QUEUED;
}

static void file_bio_done(struct vublk_queue *q, struct vublk_ring_event *ev,
			  const struct io_uring_cqe *cqe)
{
	struct vublk_bio *bio = (struct vublk_bio *)((char *)ev -
						     offsetof(struct vublk_bio, ev));

	if (!vublk_req_has_data(&bio->req) || cqe->res < 0) {
		bio->end_io(q, bio, vublk_bio_result(bio, cqe->res < 0 ?
							    cqe->res : 0));
		return;
	}
	if (cqe->res == 0) {	/* the store ended early */
		bio->end_io(q, bio, -EIO);
		return;
	}
	bio->done += (uint32_t)cqe->res;
	if (bio->done < bio->req.len) {
		file_submit_rw(q, bio);	/* short: do the rest */
		return;
	}
	if (bio->req.op == VUBLK_OP_READ)	/* in the page cache now */
		file_map_read_in(&((struct file_backend *)bio->be->priv)->map,
				 bio->req.offset, bio->req.len);
	bio->end_io(q, bio, vublk_bio_result(bio, 0));
}

const struct vublk_backend_ops vublk_backend_file = {
	.name = "file",
	.summary = "io_uring reads and writes of a file or block device",
	.priv_size = sizeof(struct file_backend),
	.fixed_buffers = true,
	.open = file_open,
	.close = file_close,
	.read_sync = file_read_sync,
	.queue_init = file_queue_init,
	.submit = file_submit,
	.map = file_map_store,
	.mapped_at = file_mapped_at,
	.refresh_size = file_refresh_size,
};
