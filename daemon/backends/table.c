// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - the backends, and opening one.  A new backend is one file and
 * one line here.
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

int vublk_backend_parse(const char *arg, const struct vublk_backend_ops **ops)
{
	*ops = vublk_backend_find(arg);
	if (*ops)
		return 0;
	vublk_error("bad --backend value '%s': expected file (io_uring reads and writes) or pmem (copies to and from a libpmem2 mapping)",
		    arg);
	return -EINVAL;
}

int vublk_backend_open(struct vublk_backend *be,
		       const struct vublk_backend_ops *ops, const char *path,
		       unsigned flags)
{
	int ret;

	if (!ops)
		ops = &vublk_backend_file;	/* the default */
	*be = (struct vublk_backend){ .ops = ops, .path = path,
				      .flags = flags };
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
