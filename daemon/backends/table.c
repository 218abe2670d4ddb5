// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - the backends, their options, and opening one.  A new backend
 * is one file and one line here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "pmem.h"

extern const struct vublk_backend_ops vublk_backend_file;
extern const struct vublk_backend_ops vublk_backend_pmem;
extern const struct vublk_backend_ops vublk_backend_nbd;

static const struct vublk_backend_ops *const vublk_backends[] = {
	&vublk_backend_file,
	&vublk_backend_pmem,
	&vublk_backend_nbd,
};

#define VUBLK_NR_BACKENDS (sizeof(vublk_backends) / sizeof(vublk_backends[0]))

/* Longer than any --timeout anyone means: a day. */
#define VUBLK_BACKEND_MAX_TIMEOUT_S 86400
#define VUBLK_BACKEND_MAX_RETRIES 1000

/* The URI schemes of the NBD URI specification that libnbd connects to
 * (doc/uri.md of the NBD project; nbd_connect_uri(3)). */
static const char *const vublk_nbd_schemes[] = {
	"nbd://", "nbds://", "nbd+unix://", "nbds+unix://", "nbd+vsock://",
	"nbds+vsock://",
};

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
	vublk_error("bad --backend value '%s': expected file (io_uring reads and writes), pmem (copies to and from a libpmem2 mapping) or nbd (an NBD URI; chosen by the URI anyway)",
		    arg);
	return -EINVAL;
}

int vublk_backend_parse_opt(struct vublk_backend_cfg *cfg, int opt,
			    const char *arg)
{
	uint64_t v;

	switch (opt) {
	case VUBLK_BACKEND_OPT_BACKEND:
		return vublk_backend_parse_name(cfg, arg);
	case VUBLK_BACKEND_OPT_RETRY:
		if (vublk_parse_u64("--retry", arg, 0,
				    VUBLK_BACKEND_MAX_RETRIES, &v) < 0)
			return -EINVAL;
		cfg->retries = (unsigned)v;
		cfg->retries_set = true;
		return 0;
	case VUBLK_BACKEND_OPT_TIMEOUT:
		if (vublk_parse_u64("--timeout", arg, 1,
				    VUBLK_BACKEND_MAX_TIMEOUT_S, &v) < 0)
			return -EINVAL;
		cfg->timeout_s = (unsigned)v;
		cfg->timeout_set = true;
		return 0;
	default:
		return -EINVAL;
	}
}

bool vublk_backend_is_nbd_uri(const char *path)
{
	for (size_t i = 0; i < sizeof(vublk_nbd_schemes) /
			       sizeof(vublk_nbd_schemes[0]); i++)
		if (!strncmp(path, vublk_nbd_schemes[i],
			     strlen(vublk_nbd_schemes[i])))
			return true;
	return false;
}

/* The backend a path calls for when --backend does not say. */
static const struct vublk_backend_ops *
vublk_backend_for_path(const char *path)
{
	return vublk_backend_is_nbd_uri(path) ? &vublk_backend_nbd :
						&vublk_backend_file;
}

/* --retry and --timeout say how long to wait for a remote store; a
 * local one never makes a request wait for a connection. */
static int vublk_backend_check_cfg(const struct vublk_backend_ops *ops,
				   const struct vublk_backend_cfg *cfg,
				   const char *path)
{
	if (!(cfg->retries_set || cfg->timeout_set) ||
	    ops == &vublk_backend_nbd)
		return 0;
	vublk_error("--retry and --timeout apply to NBD exports (an nbd:// or nbd+unix:// URI), not to %s, which the %s backend serves",
		    path, ops->name);
	return -EINVAL;
}

int vublk_backend_open(struct vublk_backend *be,
		       const struct vublk_backend_cfg *cfg, const char *path,
		       unsigned flags)
{
	const struct vublk_backend_ops *ops = cfg->ops ? cfg->ops :
					      vublk_backend_for_path(path);
	int ret;

	*be = (struct vublk_backend){ .ops = ops, .path = path,
				      .flags = flags, .cfg = cfg };
	ret = vublk_backend_check_cfg(ops, cfg, path);
	if (ret)
		return ret;
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
	if (!be->ops->read_sync)
		return -EOPNOTSUPP;
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

bool vublk_backend_map(struct vublk_backend *be)
{
	if (!be->map && be->ops->map)
		be->ops->map(be);
	return be->map && be->ops->mapped_at;
}

int vublk_backend_read_mapped(struct vublk_backend *be, void (*fn)(void *ctx),
			      void *ctx)
{
	return pmem_guarded_read(be->map, be->map_len, fn, ctx);
}

void vublk_backend_fit_queues(const struct vublk_backend *be,
			      unsigned *nr_queues)
{
	if (!be->max_queues || *nr_queues <= be->max_queues)
		return;
	vublk_info("%s: %u queue%s instead of %u: %s serves no more at once",
		   be->path, be->max_queues, vublk_plural(be->max_queues),
		   *nr_queues, be->ops->name);
	*nr_queues = be->max_queues;
}
