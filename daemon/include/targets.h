/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * targets.h - the table of targets (targets/table.c), for the command
 * line and for the programs that run a target in-process.
 */
#ifndef VUBLK_TARGETS_H
#define VUBLK_TARGETS_H

#include "target.h"

/* Each target file defines its ops; table.c lists them. */
extern const struct vublk_tgt_ops vublk_tgt_loop;
extern const struct vublk_tgt_ops vublk_tgt_pmem;
extern const struct vublk_tgt_ops vublk_tgt_verity;

/* NULL-terminated table of all targets. */
extern const struct vublk_tgt_ops *const vublk_targets[];
/* The target named name, or NULL. */
const struct vublk_tgt_ops *vublk_find_target(const char *name);

#endif /* VUBLK_TARGETS_H */
