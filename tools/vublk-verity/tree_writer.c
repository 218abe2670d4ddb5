// SPDX-License-Identifier: GPL-2.0-only
/*
 * tree_writer.c - turn merkle_build_tree()'s one-block tree writes into
 * large pwrites.
 *
 * The builder writes each hash block as it fills (like the kernel's
 * build_merkle_tree() in fs/verity/enable.c, which calls
 * ->write_merkle_tree_block() per block): in order within a level, but
 * interleaved between levels, and every level lives in its own region of
 * the tree.  So each level is a sequential stream; buffering one stream
 * per level turns 4 KiB writes into VV_TREE_WRITE_BYTES ones.
 */
#include <stdlib.h>
#include <string.h>

#include "vublk_verity.h"

static int stream_flush(struct vv_tree_writer *w, struct vv_write_stream *s)
{
	int err = 0;

	if (s->len)
		err = w->write(w->write_ctx, s->buf, s->len, s->off);
	s->off += s->len;
	s->len = 0;
	return err;
}

/* The stream that bytes at off continue, or NULL. */
static struct vv_write_stream *stream_ending_at(struct vv_tree_writer *w,
						uint64_t off)
{
	size_t i;

	for (i = 0; i < VV_TREE_WRITE_STREAMS; i++)
		if (w->streams[i].buf && w->streams[i].off +
					     w->streams[i].len == off)
			return &w->streams[i];
	return NULL;
}

/* A stream for a new run at off: an unused one, else the least recent. */
static int stream_start(struct vv_tree_writer *w, uint64_t off,
			struct vv_write_stream **out)
{
	struct vv_write_stream *s = &w->streams[0];
	size_t i;
	int err;

	for (i = 1; i < VV_TREE_WRITE_STREAMS && s->buf; i++)
		if (!w->streams[i].buf ||
		    w->streams[i].last_use < s->last_use)
			s = &w->streams[i];
	if (!s->buf) {
		s->buf = malloc(VV_TREE_WRITE_BYTES);
		if (!s->buf)
			return MERKLE_E_NOMEM;
	}
	err = stream_flush(w, s);
	s->off = off;
	*out = s;
	return err;
}

static int tree_writer_append(struct vv_tree_writer *w, const uint8_t *buf,
			      size_t len, uint64_t off)
{
	struct vv_write_stream *s = stream_ending_at(w, off);
	size_t n;
	int err = s ? 0 : stream_start(w, off, &s);

	if (err)
		return err;
	s->last_use = ++w->clock;
	while (!err && len) {
		n = VV_TREE_WRITE_BYTES - s->len;
		if (n > len)
			n = len;
		memcpy(s->buf + s->len, buf, n);
		s->len += n;
		buf += n;
		len -= n;
		if (s->len == VV_TREE_WRITE_BYTES)
			err = stream_flush(w, s);
	}
	return err;
}

void vv_tree_writer_init(struct vv_tree_writer *w, merkle_write_fn write,
			 void *write_ctx)
{
	memset(w, 0, sizeof(*w));
	w->write = write;
	w->write_ctx = write_ctx;
	w->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

int vv_tree_writer_write(void *ctx, const void *buf, size_t len,
			 uint64_t off)
{
	struct vv_tree_writer *w = ctx;
	int err;

	/* merkle.h allows write callbacks from several threads at once. */
	pthread_mutex_lock(&w->lock);
	err = tree_writer_append(w, buf, len, off);
	pthread_mutex_unlock(&w->lock);
	return err;
}

int vv_tree_writer_flush(struct vv_tree_writer *w)
{
	size_t i;
	int err = 0;

	for (i = 0; i < VV_TREE_WRITE_STREAMS && !err; i++)
		err = stream_flush(w, &w->streams[i]);
	return err;
}

void vv_tree_writer_destroy(struct vv_tree_writer *w)
{
	size_t i;

	for (i = 0; i < VV_TREE_WRITE_STREAMS; i++)
		free(w->streams[i].buf);
}
