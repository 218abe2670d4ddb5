/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verity_test.h - helpers of the verity target's host tests: sealed test
 * images, a verity target driven through daemon/inproc_queue, checks.
 */
#ifndef VUBLK_VERITY_TEST_H
#define VUBLK_VERITY_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "f2fslayout.h"
#include "inproc_queue.h"
#include "nbd_server.h"

extern int vt_failures;
/* "backend=NAME": the target option vt_dev_open_io() gives first, so that
 * every test runs on the backend the program was started for. */
extern const char *vt_backend_opt;
/* An option every device gets after it ("verify-thread"), or NULL. */
extern const char *vt_extra_opt;

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", \
	__FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
	vt_failures++; } } while (0)

/* A sealed image: data, then tree, descriptor and trailer. */
struct vt_image {
	char path[256];
	uint8_t *data;			/* data_size bytes, what reads return */
	uint64_t data_size;
	unsigned log_bs;
	char digest[2 * MERKLE_MAX_DIGEST_SIZE + 8];	/* "sha256:HEX" */
	struct f2fslayout_image meta;	/* as f2fslayout_read() sees it */
};

/* Write and seal an image of data_size pseudo-random bytes in dir. */
int vt_image_create(struct vt_image *img, const char *dir, const char *name,
		    uint64_t data_size, unsigned log_bs, unsigned seed);
void vt_image_destroy(struct vt_image *img);
/* Copy img to a new file name in dir (for tampering); fills copy. */
int vt_image_copy(const struct vt_image *img, struct vt_image *copy,
		  const char *dir, const char *name);
/* XOR byte at image offset pos with 0xff. */
int vt_image_flip(const struct vt_image *img, uint64_t pos);
/* The same in any file. */
int vt_flip_file_byte(const char *path, uint64_t pos);
/* Image offset of hash block 'block' (index in the tree). */
uint64_t vt_tree_block_pos(const struct vt_image *img, uint64_t block);
/* SHA-256 of the whole image file, for "unchanged" checks. */
int vt_file_sha256(const char *path, uint8_t out[32]);

/* A verity target on an image, with one in-process queue; with
 * "backend=nbd" the image is served by an nbdkit of its own. */
struct vt_dev {
	struct vublk_tgt tgt;
	struct inproc_queue iq;
	uint8_t *bufs;			/* depth x max_io_bytes, page aligned */
	struct nbd_server server;
	char uri[320];
	bool ready;
};

#define VT_DEPTH 16
#define VT_MAX_IO (512 * 1024)

/*
 * init the target with options "name=value" (or "name" alone), NULL
 * terminated, and requests of at most max_io bytes (0: VT_MAX_IO);
 * returns ops->init's result (0 or -errno) and sets up the queue on
 * success.
 */
int vt_dev_open_io(struct vt_dev *d, const char *image,
		   const char *const *opts, uint32_t max_io);
static inline int vt_dev_open(struct vt_dev *d, const char *image,
			      const char *const *opts)
{
	return vt_dev_open_io(d, image, opts, 0);
}
void vt_dev_close(struct vt_dev *d);
/* Buffer of tag. */
void *vt_dev_buf(struct vt_dev *d, unsigned tag);
/* One READ, waited for; returns its result. */
int vt_dev_read(struct vt_dev *d, uint64_t off, uint32_t len, unsigned flags);
/* The target's counter 'name' (as in stats_json), or UINT64_MAX. */
uint64_t vt_dev_counter(struct vt_dev *d, const char *name);

#endif /* VUBLK_VERITY_TEST_H */
