/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * runfile.h - files of the run directory (core/runfile.c): the state file
 * and the stats file, which the server and the CLI replace whole, and the
 * servers' logs.
 *
 * vublk runs as root in a directory that should be root's alone, but
 * never trusts that: a file is created only where nothing is (O_EXCL,
 * which refuses a planted symlink too), opened only if it is not a
 * symlink (O_NOFOLLOW), and given its mode explicitly (0644: anyone may
 * read the state, only root write it), whatever the umask.
 */
#ifndef VUBLK_RUNFILE_H
#define VUBLK_RUNFILE_H

#include <stddef.h>
#include <stdio.h>

/* The mode of every file vublk creates there. */
#define VUBLK_RUN_FILE_MODE 0644

/*
 * Create a new temporary sibling of path (path.XXXXXX, its name into tmp)
 * for a new version of the file; NULL with errno set on failure.
 */
FILE *vublk_file_begin(const char *path, char *tmp, size_t tmp_len);
/*
 * Close f and put tmp in place of path, atomically: a reader sees the old
 * file or the whole new one (rename replaces whatever path was, a symlink
 * included, and never follows it).  A write that failed before fclose() (a
 * buffer flushed early, with ENOSPC) shows only in ferror(): a cut file is
 * never renamed into place.  On failure tmp is removed.  0 or -errno.
 */
int vublk_file_commit(FILE *f, const char *tmp, const char *path);

/*
 * Open path for writing at its end (a log): created if missing, refused
 * (-ELOOP) if it is a symlink.  An fd, or -errno.
 */
int vublk_file_append(const char *path);

#endif /* VUBLK_RUNFILE_H */
