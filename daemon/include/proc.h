/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc.h - who has a file open, from /proc (core/proc.c): for telling a
 * device's server by the /dev/ublkcN it holds (cli/identity.c), and
 * whether /dev/ublkbN is in use (core/ctrl.c, on kernels without
 * TRY_STOP_DEV).
 */
#ifndef VUBLK_PROC_H
#define VUBLK_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* Process pid has an fd open on path (as /proc/PID/fd links read). */
bool vublk_proc_has_open(pid_t pid, const char *path);
/* Some process has (as `fuser PATH` finds). */
bool vublk_any_proc_has_open(const char *path);

#endif /* VUBLK_PROC_H */
