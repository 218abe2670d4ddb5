// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_lookup.c - a name in a directory, and a path from the root.
 *
 * f2fs_find_entry() (fs/f2fs/dir.c) hashes the name and compares it only
 * with the entries of the same hash in the buckets the hash selects.  In
 * a casefolded directory the hash is of the casefolded name, which needs
 * the kernel's Unicode tables; like the kernel's fallback when the hash
 * misses (use_hash = false), every entry is compared then, here byte for
 * byte.
 */

#include <errno.h>
#include <string.h>

#include "f2fs_private.h"

struct name_match {
	const uint8_t *name;
	size_t len;
	uint32_t ino;
	unsigned type;
};

/* An f2fs_dentry_fn: 1 (stop) on the entry named m->name. */
static int match_name(void *ctx, const struct f2fs_dentry *d)
{
	struct name_match *m = ctx;

	if (d->name_len != m->len || memcmp(d->name, m->name, m->len))
		return 0;
	m->ino = d->ino;
	m->type = d->type;
	return 1;
}

/* name in directory ii -> its inode and type, or -ENOENT. */
static int dir_lookup(const struct f2fslayout_fs *fs,
		      const struct f2fs_inode_info *ii, const uint8_t *name,
		      size_t len, uint32_t *ino, unsigned *type)
{
	struct name_match m = { .name = name, .len = len };
	uint32_t hash = f2fs_dentry_hash(name, len);
	bool casefold = ii->flags & F2FS_CASEFOLD_FL;
	int r;

	r = f2fs_dir_iterate(fs, ii, casefold ? NULL : &hash, match_name, &m);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*ino = m.ino;
	*type = m.type;
	return 0;
}

int f2fslayout_fs_lookup(struct f2fslayout_fs *fs, const char *path,
			 uint32_t *ino)
{
	struct f2fs_inode_info dir;
	const char *name = path;
	unsigned type;
	size_t len;
	int err;

	*ino = fs->info.root_ino;
	for (;;) {
		while (*name == '/')
			name++;
		if (!*name)
			return 0;
		len = strcspn(name, "/");
		if (len > F2FSLAYOUT_F2FS_NAME_LEN)
			return -ENAMETOOLONG;
		err = f2fs_read_inode(fs, *ino, &dir);
		if (!err)
			err = dir_lookup(fs, &dir, (const uint8_t *)name, len,
					 ino, &type);
		if (err)
			return err;
		name += len;
	}
}
