/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ublk_compat.h - ublk constants that Debian 12's <linux/ublk_cmd.h> (Linux
 * 6.1) lacks, each with the value the kernel defines and the first
 * release that has it (7.3's include/uapi/linux/ublk_cmd.h is the
 * reference).  A newer header's own definitions win.
 */
#ifndef VUBLK_UBLK_COMPAT_H
#define VUBLK_UBLK_COMPAT_H

#include <linux/ioctl.h>
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
/* 6.13: the recovery state that fails I/O while no server runs. */
#define UBLK_S_DEV_FAIL_IO 3
#endif

/*
 * Feature flags (dev_info.flags, UBLK_U_CMD_GET_FEATURES) newer than the
 * 6.1 header, each with the first Linux release that has it (checked in
 * the 6.12 and 7.3 trees; see core/features.c, which names them).
 */
#ifndef UBLK_F_UNPRIVILEGED_DEV
#define UBLK_F_UNPRIVILEGED_DEV		(1ULL << 5)	/* 6.2 */
#endif
#ifndef UBLK_F_CMD_IOCTL_ENCODE
#define UBLK_F_CMD_IOCTL_ENCODE		(1ULL << 6)	/* 6.4 */
#endif
#ifndef UBLK_F_USER_COPY
#define UBLK_F_USER_COPY		(1ULL << 7)	/* 6.5 */
#endif
#ifndef UBLK_F_ZONED
#define UBLK_F_ZONED			(1ULL << 8)	/* 6.6 */
#endif
#ifndef UBLK_F_USER_RECOVERY_FAIL_IO
#define UBLK_F_USER_RECOVERY_FAIL_IO	(1ULL << 9)	/* 6.13 */
#endif
#ifndef UBLK_F_UPDATE_SIZE
#define UBLK_F_UPDATE_SIZE		(1ULL << 10)	/* 6.16 */
#endif
#ifndef UBLK_F_AUTO_BUF_REG
#define UBLK_F_AUTO_BUF_REG		(1ULL << 11)	/* 6.16 */
#endif
#ifndef UBLK_F_QUIESCE
#define UBLK_F_QUIESCE			(1ULL << 12)	/* 6.16 */
#endif
#ifndef UBLK_F_PER_IO_DAEMON
#define UBLK_F_PER_IO_DAEMON		(1ULL << 13)	/* 6.16 */
#endif
#ifndef UBLK_F_BUF_REG_OFF_DAEMON
#define UBLK_F_BUF_REG_OFF_DAEMON	(1ULL << 14)	/* 6.17 */
#endif
#ifndef UBLK_F_BATCH_IO
#define UBLK_F_BATCH_IO			(1ULL << 15)	/* 7.0 */
#endif
#ifndef UBLK_F_INTEGRITY
#define UBLK_F_INTEGRITY		(1ULL << 16)	/* 7.0 */
#endif
#ifndef UBLK_F_SAFE_STOP_DEV
#define UBLK_F_SAFE_STOP_DEV		(1ULL << 17)	/* 7.0 */
#endif
#ifndef UBLK_F_NO_AUTO_PART_SCAN
#define UBLK_F_NO_AUTO_PART_SCAN	(1ULL << 18)	/* 7.0 */
#endif
#ifndef UBLK_F_SHMEM_ZC
#define UBLK_F_SHMEM_ZC			(1ULL << 19)	/* 7.1 */
#endif
#ifndef UBLK_F_IO_DESC_SIZE
#define UBLK_F_IO_DESC_SIZE		(1ULL << 20)	/* 7.3 */
#endif

/* Control commands the 6.1 header lacks (the plain numbers). */
#ifndef UBLK_CMD_GET_FEATURES
#define UBLK_CMD_GET_FEATURES		0x13	/* 6.5 */
#define UBLK_CMD_DEL_DEV_ASYNC		0x14	/* 6.9; works from 6.11 */
#define UBLK_CMD_UPDATE_SIZE		0x15	/* 6.16 */
#define UBLK_CMD_QUIESCE_DEV		0x16	/* 6.16 */
#define UBLK_CMD_TRY_STOP_DEV		0x17	/* 7.0 */
#endif
/* GET_FEATURES answers 8 bytes (ublk_ctrl_get_features()). */
#define VUBLK_FEATURES_LEN 8

/*
 * The ioctl encoding of the commands (6.4, "block: ublk: switch to ioctl
 * command encoding"): _IOR/_IOWR('u', nr, the command's struct).  A
 * kernel built without CONFIG_BLKDEV_UBLK_LEGACY_OPCODES answers every
 * plain number with -EOPNOTSUPP (ublk_check_cmd_op()); GET_FEATURES is
 * recognised only encoded.
 */
#define VUBLK_U_CMD(dir, nr) dir('u', nr, struct ublksrv_ctrl_cmd)
#define VUBLK_U_IO(nr) _IOWR('u', nr, struct ublksrv_io_cmd)
#ifndef UBLK_U_CMD_GET_FEATURES
#define UBLK_U_CMD_GET_FEATURES		VUBLK_U_CMD(_IOR, UBLK_CMD_GET_FEATURES)
#endif

/* A request's pages as buffer cmd.addr of the issuing ring's table, and
 * back (6.15, UBLK_F_SUPPORT_ZERO_COPY; only ever ioctl-encoded). */
#ifndef UBLK_U_IO_REGISTER_IO_BUF
#define UBLK_U_IO_REGISTER_IO_BUF	VUBLK_U_IO(0x23)
#endif
#ifndef UBLK_U_IO_UNREGISTER_IO_BUF
#define UBLK_U_IO_UNREGISTER_IO_BUF	VUBLK_U_IO(0x24)
#endif

/* The auto buffer registration word of FETCH/COMMIT's sqe->addr (6.16,
 * UBLK_F_AUTO_BUF_REG): the fixed-buffer index, and flags. */
#ifndef UBLK_AUTO_BUF_REG_FALLBACK
#define UBLK_AUTO_BUF_REG_FALLBACK	(1 << 0)
#endif

/*
 * Device parameters up to the DMA alignment (6.15, UBLK_PARAM_TYPE_DMA_ALIGN):
 * the kernel's struct ublk_params of 7.x begins so; Debian 12's header
 * stops after discard.  SET_PARAMS copies what len covers.
 */
#ifndef UBLK_PARAM_TYPE_DMA_ALIGN
#define UBLK_PARAM_TYPE_DMA_ALIGN	(1 << 4)
#endif
struct vublk_ublk_params {
	struct ublk_params head;		/* len, types, basic, discard */
	uint32_t devt[4];			/* struct ublk_param_devt */
	uint32_t zoned[8];			/* struct ublk_param_zoned */
	struct {				/* struct ublk_param_dma_align */
		uint32_t alignment;
		uint8_t pad[4];
	} dma;
};

#endif /* VUBLK_UBLK_COMPAT_H */
