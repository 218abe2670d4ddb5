// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_walk.c - every entry below a directory, as readdir() would list
 * them (f2fs_readdir(), fs/f2fs/dir.c), recursively.
 *
 * Bounded on any image: each directory inode is walked at most once (an
 * honest f2fs has no directory hard links; a corrupt one may), paths
 * stay under PATH_MAX, and the recursion keeps little on the stack (a
 * directory's entries are listed, then its subdirectories walked).
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "f2fs_private.h"

struct walk {
	struct f2fslayout_fs *fs;
	f2fslayout_walk_fn fn;
	void *ctx;
	int stop;			/* fn's non-zero answer */
	char path[PATH_MAX];
	size_t path_len;
	uint32_t *seen;			/* open addressing; 0 = empty */
	size_t seen_cap, seen_n;
};

/* A subdirectory to walk after its parent's entries. */
struct subdir {
	uint32_t ino;
	uint8_t name_len;
	char name[F2FSLAYOUT_F2FS_NAME_LEN];
};

struct subdir_list {
	struct walk *w;
	struct subdir *v;
	size_t n, cap;
};

static int seen_grow(struct walk *w)
{
	size_t cap = w->seen_cap ? 2 * w->seen_cap : 64;
	uint32_t *old = w->seen, *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < w->seen_cap; i++) {
		size_t j = old[i] % cap;

		if (!old[i])
			continue;
		while (v[j])
			j = (j + 1) % cap;
		v[j] = old[i];
	}
	free(old);
	w->seen = v;
	w->seen_cap = cap;
	return 0;
}

/* 1 if ino was seen before, else remember it and return 0. */
static int seen_add(struct walk *w, uint32_t ino)
{
	size_t j;
	int err;

	if (2 * (w->seen_n + 1) > w->seen_cap) {
		err = seen_grow(w);
		if (err)
			return err;
	}
	for (j = ino % w->seen_cap; w->seen[j]; j = (j + 1) % w->seen_cap)
		if (w->seen[j] == ino)
			return 1;
	w->seen[j] = ino;
	w->seen_n++;
	return 0;
}

static int report(struct walk *w, uint32_t ino, unsigned type, int err)
{
	struct f2fslayout_dirent e = {
		.path = w->path[0] ? w->path : "/",
		.ino = ino,
		.type = type < F2FSLAYOUT_FT_SYMLINK + 1 ? type
							 : F2FSLAYOUT_FT_UNKNOWN,
		.err = err,
	};

	w->stop = w->fn(w->ctx, &e);
	return w->stop;
}

/* Append "/name" to the path; false if that would pass PATH_MAX. */
static bool path_push(struct walk *w, const char *name, size_t len)
{
	if (w->path_len + 1 + len >= sizeof(w->path))
		return false;
	w->path[w->path_len] = '/';
	memcpy(w->path + w->path_len + 1, name, len);
	w->path_len += 1 + len;
	w->path[w->path_len] = '\0';
	return true;
}

static int keep_subdir(struct subdir_list *l, const struct f2fs_dentry *d)
{
	struct subdir *v;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
	}
	l->v[l->n].ino = d->ino;
	l->v[l->n].name_len = (uint8_t)d->name_len;
	memcpy(l->v[l->n].name, d->name, d->name_len);
	l->n++;
	return 0;
}

/* An f2fs_dentry_fn: report the entry, note it if it is a directory. */
static int list_entry(void *ctx, const struct f2fs_dentry *d)
{
	struct subdir_list *l = ctx;
	struct walk *w = l->w;
	size_t saved = w->path_len;
	int err = 0;

	if ((d->name_len == 1 && d->name[0] == '.') ||
	    (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return 0;
	if (!path_push(w, (const char *)d->name, d->name_len))
		return report(w, d->ino, d->type, -ENAMETOOLONG) ? 1 : 0;
	if (report(w, d->ino, d->type, 0))
		err = 1;
	else if (d->type == F2FSLAYOUT_FT_DIR)
		err = keep_subdir(l, d);
	w->path_len = saved;
	w->path[saved] = '\0';
	return err;
}

static int walk_dir(struct walk *w, uint32_t ino);

static int walk_subdirs(struct walk *w, const struct subdir_list *l)
{
	size_t saved = w->path_len;
	int r = 0;

	for (size_t i = 0; i < l->n && !r; i++) {
		/* The names fitted when they were listed. */
		path_push(w, l->v[i].name, l->v[i].name_len);
		r = walk_dir(w, l->v[i].ino);
		w->path_len = saved;
		w->path[saved] = '\0';
	}
	return r;
}

/*
 * Walk directory ino at w->path; a directory that cannot be read is
 * reported (again) with its error, and the walk goes on.  Returns 0, or
 * non-zero to stop (fn's answer, or -ENOMEM).
 */
static int walk_dir(struct walk *w, uint32_t ino)
{
	struct subdir_list l = { .w = w };
	struct f2fs_inode_info *ii;
	int r;

	r = seen_add(w, ino);
	if (r)
		return r < 0 ? r : 0;
	ii = malloc(sizeof(*ii));
	if (!ii)
		return -ENOMEM;
	r = f2fs_read_inode(w->fs, ino, ii);
	if (!r)
		r = f2fs_dir_iterate(w->fs, ii, NULL, list_entry, &l);
	free(ii);
	if (r == 1 || r == -ENOMEM) {
		free(l.v);
		return w->stop ? w->stop : r;
	}
	if (r)
		r = report(w, ino, F2FSLAYOUT_FT_DIR, r);
	if (!r)
		r = walk_subdirs(w, &l);
	free(l.v);
	return r;
}

static unsigned type_of_mode(uint32_t mode)
{
	static const unsigned by_format[16] = {
		[001] = F2FSLAYOUT_FT_FIFO, [002] = F2FSLAYOUT_FT_CHRDEV,
		[004] = F2FSLAYOUT_FT_DIR, [006] = F2FSLAYOUT_FT_BLKDEV,
		[010] = F2FSLAYOUT_FT_REG_FILE, [012] = F2FSLAYOUT_FT_SYMLINK,
		[014] = F2FSLAYOUT_FT_SOCK,
	};

	return by_format[(mode >> 12) & 017];
}

/* w->path = path as given, '/'-separated, without empty names. */
static int path_set(struct walk *w, const char *path)
{
	const char *p = path;
	size_t len;

	for (;;) {
		p += strspn(p, "/");
		if (!*p)
			return 0;
		len = strcspn(p, "/");
		if (!path_push(w, p, len))
			return -ENAMETOOLONG;
		p += len;
	}
}

int f2fslayout_fs_walk(struct f2fslayout_fs *fs, const char *path,
		       f2fslayout_walk_fn fn, void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct f2fs_inode_info *ii = malloc(sizeof(*ii));
	uint32_t ino;
	int r;

	if (!w || !ii) {
		free(w);
		free(ii);
		return -ENOMEM;
	}
	*w = (struct walk){ .fs = fs, .fn = fn, .ctx = ctx };
	r = path_set(w, path);
	if (!r)
		r = f2fslayout_fs_lookup(fs, path, &ino);
	if (!r)
		r = f2fs_read_inode(fs, ino, ii);
	if (!r)
		r = report(w, ino, type_of_mode(ii->mode), 0);
	if (!r && is_dir_mode(ii->mode))
		r = walk_dir(w, ino);
	free(ii);
	free(w->seen);
	free(w);
	return r;
}
