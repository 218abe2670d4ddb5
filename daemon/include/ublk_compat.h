/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ublk_compat.h - ublk constants that Debian 12's <linux/ublk_cmd.h> (Linux
 * 6.1) lacks.  Each has the value the kernel defines; we only talk the
 * legacy (non ioctl-encoded) opcodes that this header has, which Debian's
 * 6.12 guest kernel accepts with CONFIG_BLKDEV_UBLK_LEGACY_OPCODES=y.
 */
#ifndef VUBLK_UBLK_COMPAT_H
#define VUBLK_UBLK_COMPAT_H

#include <linux/ublk_cmd.h>

#ifndef UBLK_MAX_NR_QUEUES
/* include/uapi/linux/ublk_cmd.h (6.5+): (1U << UBLK_QID_BITS), 12 bits. */
#define UBLK_MAX_NR_QUEUES 4096
#endif

/*
 * drivers/block/ublk_drv.c: UBLK_MAX_UBLKS = UBLK_MINORS = 1U << MINORBITS
 * (20): ublk_ctrl_add_dev() refuses a dev_id at or above it.
 */
#define VUBLK_MAX_DEV_ID ((1U << 20) - 1)

/* "Any free id" for ADD_DEV: ublk_ctrl_add_dev() takes U32_MAX. */
#define VUBLK_DEV_ID_ANY 0xffffffffU

#ifndef UBLK_S_DEV_FAIL_IO
/* include/uapi/linux/ublk_cmd.h (6.13+): recovery mode failing I/O. */
#define UBLK_S_DEV_FAIL_IO 3
#endif

#ifndef UBLK_F_USER_RECOVERY_FAIL_IO
/*
 * include/uapi/linux/ublk_cmd.h (6.13+): with UBLK_F_USER_RECOVERY, fail
 * I/O while no server runs instead of queueing it.  6.12 does not know it:
 * ublk_ctrl_add_dev() clears unknown flags ("flags &= UBLK_F_ALL") in the
 * info it copies back, which is how we find out (no GET_FEATURES in the
 * bookworm header, and 6.12 has no FAIL_IO to report anyway).
 */
#define UBLK_F_USER_RECOVERY_FAIL_IO (1ULL << 9)
#endif

#endif /* VUBLK_UBLK_COMPAT_H */
