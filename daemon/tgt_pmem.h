/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tgt_pmem.h - what code outside the pmem target may know of it besides
 * its ops (vublk_tgt_pmem, target.h).
 */
#ifndef VUBLK_TGT_PMEM_H
#define VUBLK_TGT_PMEM_H

#include "pmem.h"
#include "target.h"

/*
 * The lib/pmem device of an initialised pmem target.  For vublk-bench
 * pmem, whose lib/pmem and bare libpmem2 sides must copy through the
 * target's own mapping: each mapping has its own page tables, and on this
 * project's test machines (guests themselves) random 4 KiB copies through
 * two mappings of one file differed by up to 6% in speed.
 */
struct pmem_dev *pmem_tgt_device(const struct vublk_tgt *t);

#endif /* VUBLK_TGT_PMEM_H */
