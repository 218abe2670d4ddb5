// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - the table of targets; add new ones here.
 */
#include <string.h>

#include "targets.h"

const struct vublk_tgt_ops *const vublk_targets[] = {
	&vublk_tgt_loop,
	&vublk_tgt_verity,
	&vublk_tgt_pmem,
	NULL,
};

const struct vublk_tgt_ops *vublk_find_target(const char *name)
{
	const struct vublk_tgt_ops *const *t;

	for (t = vublk_targets; *t; t++)
		if (!strcmp((*t)->name, name))
			return *t;
	return NULL;
}
