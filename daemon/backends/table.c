// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - the backends, their options, and opening one.  A new backend
 * is one file and one line here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

extern const struct vublk_backend_ops vublk_backend_file;
extern const struct vublk_backend_ops vublk_backend_pmem;

static const struct vublk_backend_ops *const vublk_backends[] = {
	&vublk_backend_file,
	&vublk_backend_pmem,
};

#define VUBLK_NR_BACKENDS (sizeof(vublk_backends) / sizeof(vublk_backends[0]))

const struct vublk_backend_ops *vublk_backend_find(const char *name)
{
	for (size_t i = 0; i < VUBLK_NR_BACKENDS; i++)
		if (!strcmp(vublk_backends[i]->name, name))
			return vublk_backends[i];
	return NULL;
}

static int vublk_backend_parse_name(struct vublk_backend_cfg *cfg,
				    const char *arg)
{
	cfg->ops = vublk_backend_find(arg);
	if (cfg->ops)
		return 0;
	vublk_error("bad --backend value '%s': expected file (io_uring reads and writes) or pmem (copies to and from a libpmem2 mapping)",
		    arg);
	return -EINVAL;
}

int vublk_backend_parse_opt(struct vublk_backend_cfg *cfg, int opt,
			    const char *arg)
{
	switch (opt) {
	case VUBLK_BACKEND_OPT_BACKEND:
		return vublk_backend_parse_name(cfg, arg);
	default:
		return -EINVAL;
	}
}

int vublk_backend_open(struct vublk_backend *be,
		       const struct vublk_backend_cfg *cfg, const char *path,
		       unsigned flags)
{
	const struct vublk_backend_ops *ops = cfg->ops ? cfg->ops :
					      &vublk_backend_file;
	int ret;

	*be = (struct vublk_backend){ .ops = ops, .path = path,
				      .flags = flags, .cfg = cfg };
	be->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!be->priv) {
		vublk_error("no memory to open %s", path);
		return -ENOMEM;
	}
	ret = ops->open(be);
	if (ret) {
		free(be->priv);
		be->priv = NULL;
	}
	return ret;
}

void vublk_backend_close(struct vublk_backend *be)
{
	if (!be->priv)
		return;
	be->ops->close(be);
	free(be->priv);
	be->priv = NULL;
}

/*
 * Backends read whole blocks into aligned memory (O_DIRECT, an NBD
 * server's minimum block size): a read of any range goes through a bounce
 * buffer of the blocks that cover it.  Rare (a target's metadata, at
 * start), so no attempt is made to read in place.
 */
int vublk_backend_read(struct vublk_backend *be, void *buf, size_t len,
		       uint64_t pos)
{
	uint64_t mask = (1ULL << be->block_shift) - 1, start, end;
	void *bounce;
	int ret;

	if (pos > be->size || len > be->size - pos)
		return -EIO;	/* past the end: the store is smaller */
	start = pos & ~mask;
	end = (pos + len + mask) & ~mask;
	if (end > be->size)
		end = be->size;
	if (posix_memalign(&bounce, 4096, end - start ? end - start : 1))
		return -ENOMEM;
	ret = be->ops->read_sync(be, bounce, end - start, start);
	if (!ret)
		memcpy(buf, (char *)bounce + (pos - start), len);
	free(bounce);
	return ret;
}

void vublk_backend_fit_queues(const struct vublk_backend *be,
			      unsigned *nr_queues)
{
	if (!be->max_queues || *nr_queues <= be->max_queues)
		return;
	vublk_info("%s: %u queue%s instead of %u: %s serves no more at once",
		   be->path, be->max_queues, be->max_queues == 1 ? "" : "s",
		   *nr_queues, be->ops->name);
	*nr_queues = be->max_queues;
}
