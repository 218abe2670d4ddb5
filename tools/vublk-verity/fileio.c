// SPDX-License-Identifier: GPL-2.0-only
/*
 * fileio.c - opening files with one clear error line, and full-length
 * pread/pwrite usable as lib/merkle's I/O callbacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "openinput.h"
#include "vublk_verity.h"

static const char *access_mode_name(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return "reading";
	case O_WRONLY:
		return "writing";
	default:
		return "reading and writing";
	}
}

/*
 * An input opens without waiting for a FIFO's writer (openinput.h); the
 * callers that need a size refuse anything but a file or a block device.
 * An output is opened as asked: a FIFO given as one waits for its reader.
 */
static int open_file(const char *name, int flags, mode_t mode)
{
	int fd;

	if ((flags & O_ACCMODE) == O_RDONLY)
		return open_input(name, flags);
	fd = open(name, flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

bool vv_open(struct vv_file *f, const char *name, int flags, mode_t mode)
{
	int fd = open_file(name, flags, mode);

	f->name = name;
	f->fd = fd < 0 ? -1 : fd;
	if (fd >= 0)
		return true;
	vv_error("can't open '%s' for %s: %s", name, access_mode_name(flags),
		 strerror(-fd));
	return false;
}

bool vv_output_not_input(const char *opt, const char *out, const char *what,
			 const char *in)
{
	struct stat o, i;
	bool out_exists, in_exists, same;

	if (!out || !in)
		return true;
	out_exists = stat(out, &o) == 0;
	in_exists = stat(in, &i) == 0;
	if (out_exists && in_exists)	/* /dev/null twice is no harm */
		same = S_ISREG(o.st_mode) && o.st_dev == i.st_dev &&
		       o.st_ino == i.st_ino;
	else
		same = !out_exists && !in_exists && !strcmp(out, in);
	if (same)
		vv_error("%s '%s' is the same file as %s '%s': one would overwrite the other; give another file",
			 opt, out, what, in);
	return !same;
}

bool vv_open_regular(struct vv_file *f, const char *name, int flags,
		     uint64_t *size)
{
	struct stat st;

	if (!vv_open(f, name, flags, 0))
		return false;
	if (fstat(f->fd, &st) != 0) {
		vv_error("can't stat '%s': %s", name, strerror(errno));
		vv_close(f);
		return false;
	}
	/*
	 * The size of anything else (a directory, a pipe, a block device) is
	 * not the number of bytes a read returns.
	 */
	if (!S_ISREG(st.st_mode)) {
		vv_error("'%s' is not a regular file: give a file", name);
		vv_close(f);
		return false;
	}
	*size = st.st_size;
	return true;
}

bool vv_open_sized(struct vv_file *f, const char *name, uint64_t *size)
{
	struct stat st;

	if (!vv_open(f, name, O_RDONLY, 0))
		return false;
	if (fstat(f->fd, &st) != 0) {
		vv_error("can't stat '%s': %s", name, strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return true;
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(f->fd, BLKGETSIZE64, size) == 0)
			return true;
		vv_error("can't get the size of block device '%s': %s", name,
			 strerror(errno));
	} else {
		vv_error("'%s' is neither a regular file nor a block device: give a file or a device",
			 name);
	}
	vv_close(f);
	return false;
}

bool vv_close(struct vv_file *f)
{
	int ret;

	if (f->fd < 0)
		return true;
	ret = close(f->fd);
	f->fd = -1;
	if (ret != 0) {
		vv_error("error closing '%s': %s", f->name, strerror(errno));
		return false;
	}
	return true;
}

int vv_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA;
		buf = (char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/* All len bytes at off, or in order where the file is (off < 0: a pipe
 * takes that only); 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len, int64_t off)
{
	while (len) {
		ssize_t n = off < 0 ? write(fd, buf, len) :
				      pwrite(fd, buf, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf = (const char *)buf + n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int vv_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	return off > INT64_MAX ? -EFBIG : write_all(fd, buf, len, (int64_t)off);
}

bool vv_write_new_file(const char *name, const char *what, const void *buf,
		       size_t len)
{
	struct vv_file out;
	int err;

	if (!vv_open(&out, name, O_WRONLY | O_CREAT | O_TRUNC, 0644))
		return false;
	err = write_all(out.fd, buf, len, -1);
	if (err) {
		vv_error("error writing the %s to '%s': %s", what, name,
			 strerror(-err));
		vv_close(&out);
		return false;
	}
	return vv_close(&out);
}

void vv_region_init(struct vv_region *r, const struct vv_file *f,
		    uint64_t base)
{
	r->fd = f->fd;
	r->base = base;
	r->name = f->name;
	r->error = 0;
	r->error_off = 0;
}

static int region_note_error(struct vv_region *r, int err, uint64_t off)
{
	int none = 0;

	if (__atomic_compare_exchange_n(&r->error, &none, err, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		r->error_off = off;
	return err;
}

int vv_region_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct vv_region *r = ctx;
	int err = vv_pread_full(r->fd, buf, len, r->base + off);

	return err ? region_note_error(r, err, r->base + off) : 0;
}

int vv_region_write(void *ctx, const void *buf, size_t len, uint64_t off)
{
	struct vv_region *r = ctx;
	int err = vv_pwrite_full(r->fd, buf, len, r->base + off);

	return err ? region_note_error(r, err, r->base + off) : 0;
}

const char *vv_io_error_text(int err)
{
	if (err == -ENODATA)
		return "unexpected end of file (did the file shrink meanwhile?)";
	return strerror(-err);
}

void vv_report_build_error(const char *data_name,
			   const struct vv_region *data,
			   const struct vv_region *tree, const char *reason)
{
	/* The threads have been joined: plain reads of error are fine. */
	if (data->error)
		vv_error("error reading '%s' at offset %llu: %s", data->name,
			 (unsigned long long)data->error_off,
			 vv_io_error_text(data->error));
	else if (tree && tree->error)
		vv_error("error writing the Merkle tree to '%s' at offset %llu: %s",
			 tree->name, (unsigned long long)tree->error_off,
			 vv_io_error_text(tree->error));
	else
		vv_error("can't build the Merkle tree of '%s': %s", data_name,
			 reason);
}

int vv_open_image(const char *name, int flags, struct vv_file *f,
		  struct f2fslayout_image *img)
{
	int err;

	/* A block device is fine too: f2fslayout_read() sizes it. */
	if (!vv_open(f, name, flags, 0))
		return VV_EXIT_USAGE;
	err = f2fslayout_read(f->fd, img);
	if (!err)
		return VV_EXIT_OK;
	vv_close(f);
	/* f2fslayout_strerror() says what to do (format, or re-format). */
	switch (f2fslayout_error_kind(err)) {
	case F2FSLAYOUT_ERR_NOT_SEALED:
		vv_error("'%s' is not a vublk image: %s", name,
			 f2fslayout_strerror(err));
		return VV_EXIT_FAILURE;
	case F2FSLAYOUT_ERR_DAMAGE:
		vv_error("'%s' has invalid vublk metadata: %s", name,
			 f2fslayout_strerror(err));
		return VV_EXIT_FAILURE;
	default:	/* says nothing about the image's contents */
		vv_error("can't read the vublk metadata of '%s': %s", name,
			 f2fslayout_strerror(err));
		return VV_EXIT_USAGE;
	}
}
