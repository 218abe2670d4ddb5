// SPDX-License-Identifier: GPL-2.0-only
/*
 * open.c - map a file or device-DAX node with libpmem2 (pmem_open) and
 * unmap it (pmem_close).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmem_internal.h"

_Static_assert(PMEM_GRANULARITY_BYTE == (int)PMEM2_GRANULARITY_BYTE &&
	       PMEM_GRANULARITY_CACHE_LINE == (int)PMEM2_GRANULARITY_CACHE_LINE &&
	       PMEM_GRANULARITY_PAGE == (int)PMEM2_GRANULARITY_PAGE,
	       "enum pmem_granularity must mirror enum pmem2_granularity");

void pmem_set_error(char *errbuf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, PMEM_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
}

/*
 * libpmem2 returns either -errno or one of its PMEM2_E_* codes, and does not
 * always leave a message behind (pmem2_source_from_fd() on /dev/null leaves
 * an empty one): fall back to something that still names the failure.
 */
const char *pmem_libpmem2_reason(int rc)
{
	const char *msg = pmem2_errormsg();

	if (msg && msg[0])
		return msg;
	if (rc < 0 && rc > PMEM2_E_UNKNOWN)
		return strerror(-rc);
	if (rc == PMEM2_E_INVALID_FILE_TYPE)
		return "not a type of file it can map";
	return "unspecified libpmem2 error";
}

/* A negative errno for our callers, whatever libpmem2 returned. */
static int pmem_errno_of(int rc)
{
	if (rc < 0 && rc > PMEM2_E_UNKNOWN)
		return rc;
	return rc == PMEM2_E_NOSUPP || rc == PMEM2_E_INVALID_FILE_TYPE ?
		-ENOTSUP : -EINVAL;
}

/*
 * Refuse what libpmem2 cannot map before asking it, so that the message
 * says what to use instead: libpmem2's own check (pmem2_source_from_fd)
 * only says "file type 060000 not supported" for a block device.
 */
static int pmem_check_file_type(const char *path, const struct stat *st,
				char *errbuf)
{
	if (S_ISBLK(st->st_mode)) {
		pmem_set_error(errbuf, "cannot map %s: it is a block device, which libpmem2 cannot map; use a file on a filesystem mounted with -o dax, or a device-DAX node (/dev/daxX.Y, see ndctl create-namespace -m devdax)",
			       path);
		return -ENOTSUP;
	}
	if (S_ISDIR(st->st_mode)) {
		pmem_set_error(errbuf, "cannot map %s: it is a directory; give a file in it, or a device-DAX node (/dev/daxX.Y)",
			       path);
		return -EISDIR;
	}
	if (!S_ISREG(st->st_mode) && !S_ISCHR(st->st_mode)) {
		pmem_set_error(errbuf, "cannot map %s: it is neither a regular file nor a device-DAX node; give a file (ideally on a -o dax filesystem) or /dev/daxX.Y",
			       path);
		return -ENOTSUP;
	}
	if (S_ISREG(st->st_mode) && st->st_size == 0) {
		pmem_set_error(errbuf, "cannot map %s: the file is empty; give it the device's size first (e.g. truncate -s 1G %s)",
			       path, path);
		return -EINVAL;
	}
	return 0;
}

static int pmem_source_new(const char *path, int fd, const struct stat *st,
			   struct pmem2_source **src, char *errbuf)
{
	int rc = pmem2_source_from_fd(src, fd);

	if (rc == 0)
		return 0;
	if (S_ISCHR(st->st_mode))
		pmem_set_error(errbuf, "cannot map %s: it is a character device but not a device-DAX node (libpmem2: %s); use /dev/daxX.Y or a file on a -o dax filesystem",
			       path, pmem_libpmem2_reason(rc));
	else
		pmem_set_error(errbuf, "cannot map %s: libpmem2 refuses it: %s",
			       path, pmem_libpmem2_reason(rc));
	return pmem_errno_of(rc);
}

/*
 * Ask for PAGE granularity, the weakest one: libpmem2 then maps whatever it
 * can (a page-cache file too) and reports what it got, which decides how
 * writes are persisted (see pmem.h).
 */
static int pmem_map_new(struct pmem_dev *dev, struct pmem2_source *src,
			const char *path, char *errbuf)
{
	struct pmem2_config *cfg;
	int rc = pmem2_config_new(&cfg);

	if (rc) {
		pmem_set_error(errbuf, "cannot map %s: %s", path,
			       pmem_libpmem2_reason(rc));
		return pmem_errno_of(rc);
	}
	rc = pmem2_config_set_required_store_granularity(cfg,
			PMEM2_GRANULARITY_PAGE);
	if (rc == 0 && dev->readonly)
		rc = pmem2_config_set_protection(cfg, PMEM2_PROT_READ);
	if (rc == 0)
		rc = pmem2_map_new(&dev->map, cfg, src);
	if (rc)
		pmem_set_error(errbuf, "cannot map %s: libpmem2: %s", path,
			       pmem_libpmem2_reason(rc));
	pmem2_config_delete(&cfg);
	return rc ? pmem_errno_of(rc) : 0;
}

/*
 * On PAGE granularity the stores stay in the page cache until pmem_flush()
 * msyncs them (PMEM2_F_MEM_NOFLUSH: libpmem2 would otherwise msync every
 * single write).  On CACHE_LINE and BYTE the default flags flush and drain,
 * so a write is persistent when it completes.
 */
static void pmem_setup_stores(struct pmem_dev *dev)
{
	dev->addr = pmem2_map_get_address(dev->map);
	dev->size = pmem2_map_get_size(dev->map);
	dev->granularity = (enum pmem_granularity)
		pmem2_map_get_store_granularity(dev->map);
	dev->memcpy_fn = pmem2_get_memcpy_fn(dev->map);
	dev->memset_fn = pmem2_get_memset_fn(dev->map);
	dev->store_flags = dev->granularity == PMEM_GRANULARITY_PAGE ?
		PMEM2_F_MEM_NOFLUSH : 0;
}

static int pmem_setup(struct pmem_dev *dev, const char *path, int fd,
		      const struct stat *st, char *errbuf)
{
	struct pmem2_source *src;
	int ret;

	ret = pmem_source_new(path, fd, st, &src, errbuf);
	if (ret)
		return ret;
	ret = pmem_map_new(dev, src, path, errbuf);
	if (ret == 0) {
		pmem_setup_stores(dev);
		ret = pmem_badblocks_load(&dev->badblocks, src, path, errbuf);
	}
	pmem2_source_delete(&src);
	if (ret)
		return ret;
	ret = dev->granularity == PMEM_GRANULARITY_PAGE ?
		pmem_dirty_init(dev) : 0;
	if (ret) {
		pmem_set_error(errbuf, "cannot map %s: %s", path,
			       strerror(-ret));
		return ret;
	}
	ret = pmem_poison_handler_install();
	if (ret)
		pmem_set_error(errbuf, "cannot map %s: cannot install the SIGBUS handler that turns poison into -EIO: %s",
			       path, strerror(-ret));
	return ret;
}

static int pmem_open_failed(const char *path, bool readonly, char *errbuf)
{
	int ret = -errno;

	pmem_set_error(errbuf, "cannot open %s %s: %s; check the path and its permissions",
		       path, readonly ? "read-only" : "read-write",
		       strerror(-ret));
	return ret;
}

int pmem_open(const char *path, unsigned int flags, struct pmem_dev **devp,
	      char errbuf[PMEM_ERRBUF_SIZE])
{
	bool readonly = flags & PMEM_OPEN_READONLY;
	struct pmem_dev *dev;
	struct stat st;
	int fd, ret;

	errbuf[0] = '\0';
	if (stat(path, &st))
		return pmem_open_failed(path, readonly, errbuf);
	/* Before open(): a block device should be explained even to a user
	 * who may not open it. */
	ret = pmem_check_file_type(path, &st, errbuf);
	if (ret)
		return ret;
	fd = open(path, (readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		return pmem_open_failed(path, readonly, errbuf);
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		pmem_set_error(errbuf, "cannot map %s: out of memory", path);
		return -ENOMEM;
	}
	dev->readonly = readonly;
	/* The mapping outlives the descriptor: libpmem2 needs it only to
	 * map and to look up bad blocks. */
	ret = pmem_setup(dev, path, fd, &st, errbuf);
	close(fd);
	if (ret) {
		pmem_close(dev);
		return ret;
	}
	*devp = dev;
	return 0;
}

void pmem_close(struct pmem_dev *dev)
{
	if (!dev)
		return;
	pmem_dirty_free(dev);
	pmem_badblocks_free(&dev->badblocks);
	/* pmem2_map_delete() fails only on a munmap() error, which cannot
	 * happen for a mapping libpmem2 made; nothing could be done anyway. */
	if (dev->map)
		(void)pmem2_map_delete(&dev->map);
	free(dev);
}

uint64_t pmem_size(const struct pmem_dev *dev)
{
	return dev->size;
}

const void *pmem_address(const struct pmem_dev *dev)
{
	return dev->addr;
}

struct pmem2_map *pmem_map(const struct pmem_dev *dev)
{
	return dev->map;
}

enum pmem_granularity pmem_granularity(const struct pmem_dev *dev)
{
	return dev->granularity;
}

const char *pmem_granularity_name(enum pmem_granularity granularity)
{
	switch (granularity) {
	case PMEM_GRANULARITY_BYTE:
		return "BYTE";
	case PMEM_GRANULARITY_CACHE_LINE:
		return "CACHE_LINE";
	case PMEM_GRANULARITY_PAGE:
		return "PAGE";
	}
	return "UNKNOWN";
}
