/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_map.h - the "file" backend's map of its store, for a target that
 * reads the page cache in place (backend.h: map, mapped_at; verity), and
 * what of it is in the page cache.  file_map.c; included by file.c only.
 */
#ifndef VUBLK_FILE_MAP_H
#define VUBLK_FILE_MAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct file_map {
	const uint8_t *addr;	/* NULL: not mapped */
	uint64_t len;
	size_t page_size;
	/* A bit per page: in the page cache, as mincore(2) last said or a
	 * read of ours left it. */
	_Atomic uint64_t *resident;
	/* Per chunk of FILE_MAP_CHUNK_PAGES pages: when mincore last looked
	 * (file_map_now()), 0 for never. */
	_Atomic uint32_t *looked;
};

/* Map len bytes of fd (the file at path) read-only; where mincore(2)
 * would not tell us the page cache, or without memory for the
 * bookkeeping or a mapping, m stays unmapped (every read is then a
 * bio). */
void file_map_open(struct file_map *m, int fd, const char *path,
		   uint64_t len);
void file_map_close(struct file_map *m);
/* The address of byte pos when [pos, pos + len) is in the page cache,
 * else NULL (backend.h: mapped_at). */
const uint8_t *file_map_at(struct file_map *m, uint64_t pos, uint32_t len);
/* A read through the page cache brought [pos, pos + len) in. */
void file_map_read_in(struct file_map *m, uint64_t pos, uint32_t len);

#endif /* VUBLK_FILE_MAP_H */
