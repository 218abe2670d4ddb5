// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_test.c - helpers of the verity host tests (see verity_test.h).
 *
 * Images are sealed with the libraries, the way `vublk-verity format`
 * does it (f2fslayout_prepare, merkle_build_tree into the tree region,
 * f2fslayout_write_metadata); the tool itself is tested against
 * `fsverity digest` in tests/tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "targets.h"
#include "verity_test.h"

int vt_failures;
const char *vt_backend_opt = "backend=file";
const char *vt_extra_opt;

static int vt_read_data(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct vt_image *img = ctx;

	memcpy(buf, img->data + off, len);
	return 0;
}

static void vt_fill(uint8_t *p, uint64_t len, unsigned seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	for (uint64_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static int vt_seal(struct vt_image *img, int fd)
{
	struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA256,
				   .log_blocksize = img->log_bs,
				   .data_size = img->data_size };
	struct merkle_geometry g;
	struct f2fslayout_layout l;
	struct merkle_descriptor desc;
	struct f2fslayout_tree_io tio;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE], digest[MERKLE_MAX_DIGEST_SIZE];
	int err;

	err = merkle_geometry_init(&g, &p);
	if (!err)
		err = f2fslayout_plan(img->data_size, g.tree_size,
				      MERKLE_DESCRIPTOR_SIZE, &l);
	if (!err)
		err = f2fslayout_prepare(fd, &l);
	tio = (struct f2fslayout_tree_io){ fd, l.tree_pos, l.tree_size };
	if (!err)
		err = merkle_build_tree(&p, vt_read_data, img,
					f2fslayout_tree_write, &tio, 1, root);
	merkle_descriptor_init(&desc, &p, root);
	if (!err)
		err = f2fslayout_write_metadata(fd, &l, &desc);
	if (!err)
		err = merkle_descriptor_digest(&desc, digest);
	if (err)
		return err;
	strcpy(img->digest, "sha256:");
	for (unsigned i = 0; i < 32; i++)
		sprintf(img->digest + 7 + 2 * i, "%02x", digest[i]);
	return f2fslayout_read(fd, &img->meta);
}

int vt_image_create(struct vt_image *img, const char *dir, const char *name,
		    uint64_t data_size, unsigned log_bs, unsigned seed)
{
	int fd, err;

	memset(img, 0, sizeof(*img));
	snprintf(img->path, sizeof(img->path), "%s/%s", dir, name);
	img->data_size = data_size;
	img->log_bs = log_bs;
	img->data = malloc(data_size);
	if (!img->data)
		return -ENOMEM;
	vt_fill(img->data, data_size, seed);
	fd = open(img->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	err = pwrite(fd, img->data, data_size, 0) == (ssize_t)data_size ?
	      0 : -EIO;
	if (!err)
		err = vt_seal(img, fd);
	close(fd);
	return err;
}

void vt_image_destroy(struct vt_image *img)
{
	if (img->path[0])
		unlink(img->path);
	f2fslayout_image_release(&img->meta);
	free(img->data);
	memset(img, 0, sizeof(*img));
}

int vt_image_copy(const struct vt_image *img, struct vt_image *copy,
		  const char *dir, const char *name)
{
	char cmd[600];

	*copy = *img;
	copy->meta.desc = NULL;	/* owned by img */
	copy->data = NULL;
	snprintf(copy->path, sizeof(copy->path), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", img->path, copy->path);
	return system(cmd) == 0 ? 0 : -EIO;
}

int vt_image_flip(const struct vt_image *img, uint64_t pos)
{
	return vt_flip_file_byte(img->path, pos);
}

int vt_flip_file_byte(const char *path, uint64_t pos)
{
	int fd = open(path, O_RDWR);
	uint8_t b;
	int err = -EIO;

	if (fd < 0)
		return -errno;
	if (pread(fd, &b, 1, pos) == 1) {
		b ^= 0xff;
		if (pwrite(fd, &b, 1, pos) == 1)
			err = 0;
	}
	close(fd);
	return err;
}

uint64_t vt_tree_block_pos(const struct vt_image *img, uint64_t block)
{
	return img->meta.layout.tree_pos + (block << img->log_bs);
}

int vt_file_sha256(const char *path, uint8_t out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY), ok;

	ok = ctx && fd >= 0 && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	ok = ok && EVP_DigestFinal_ex(ctx, out, NULL);
	EVP_MD_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -EIO;
}

/* ---- the target ---- */

static int vt_dev_option(struct vt_dev *d, const char *opt)
{
	const struct option *o;
	char name[64];
	const char *eq = strchr(opt, '=');
	size_t n = eq ? (size_t)(eq - opt) : strlen(opt);

	snprintf(name, sizeof(name), "%.*s", (int)n, opt);
	for (o = d->tgt.ops->options; o->name; o++)
		if (!strcmp(o->name, name))
			return d->tgt.ops->parse_opt(&d->tgt, o->val,
						     eq ? eq + 1 : NULL);
	return -ENOENT;
}

/*
 * "backend=nbd": the image as an nbdkit export (read-only, the file
 * plugin, which reads the file as it is now: a byte changed or a
 * truncation under the device reaches the target as with a file), and
 * its URI in place of the path.  A missing image is a missing socket.
 */
static const char *vt_dev_serve(struct vt_dev *d, const char *image)
{
	const char *args[] = { "-r", "file", image, NULL };
	char dir[256], *slash;

	if (strcmp(vt_backend_opt, "backend=nbd") || !strncmp(image, "nbd", 3))
		return image;	/* a file, or a URI the test serves itself */
	snprintf(dir, sizeof(dir), "%s", image);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (access(image, F_OK)) {
		snprintf(d->uri, sizeof(d->uri),
			 "nbd+unix:///?socket=%s.sock", image);
		return d->uri;
	}
	if (nbd_server_start(&d->server, dir, slash ? slash + 1 : image, args))
		return NULL;
	return d->server.uri;
}

int vt_dev_open_io(struct vt_dev *d, const char *image,
		   const char *const *opts, uint32_t max_io)
{
	int ret;

	memset(d, 0, sizeof(*d));
	image = vt_dev_serve(d, image);
	if (!image)
		return -EIO;
	d->tgt = (struct vublk_tgt){
		.ops = &vublk_tgt_verity,
		.priv = calloc(1, vublk_tgt_verity.priv_size),
		.backing_file = image,
		.nr_queues = 1,
		.queue_depth = VT_DEPTH,
		.max_io_bytes = max_io ? max_io : VT_MAX_IO,
	};
	if (!d->tgt.priv)
		return -ENOMEM;
	ret = vt_dev_option(d, vt_backend_opt);
	if (!ret && vt_extra_opt)
		ret = vt_dev_option(d, vt_extra_opt);
	if (ret)
		goto fail;
	for (; opts && *opts; opts++) {
		ret = vt_dev_option(d, *opts);
		if (ret)
			goto fail;
	}
	ret = d->tgt.ops->init(&d->tgt);
	if (ret)
		goto fail;
	d->bufs = mmap(NULL, (size_t)VT_DEPTH * VT_MAX_IO,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	ret = d->bufs == MAP_FAILED ? -ENOMEM :
	      inproc_queue_init(&d->iq, &d->tgt, 0, VT_DEPTH);
	if (ret) {
		d->tgt.ops->deinit(&d->tgt);
		goto fail;
	}
	/* As the core does: registered where the target asks (--direct). */
	inproc_queue_set_buffers(&d->iq, d->bufs, VT_MAX_IO);
	d->ready = true;
	return 0;
fail:
	vublk_tgt_free_priv(&d->tgt);
	nbd_server_stop(&d->server);
	return ret;
}

void vt_dev_close(struct vt_dev *d)
{
	if (!d->ready)
		return;
	inproc_queue_exit(&d->iq);
	d->tgt.ops->deinit(&d->tgt);
	munmap(d->bufs, (size_t)VT_DEPTH * VT_MAX_IO);
	vublk_tgt_free_priv(&d->tgt);
	nbd_server_stop(&d->server);
	d->ready = false;
}

void *vt_dev_buf(struct vt_dev *d, unsigned tag)
{
	return d->bufs + (size_t)tag * VT_MAX_IO;
}

int vt_dev_read(struct vt_dev *d, uint64_t off, uint32_t len, unsigned flags)
{
	struct vublk_req req = { .op = VUBLK_OP_READ, .flags = flags,
				 .offset = off, .len = len,
				 .buf = vt_dev_buf(d, 0) };
	int ret;

	/*
	 * Poison the buffer: data left by an earlier read must not pass for
	 * this one.  It also makes the buffer defined for valgrind, which
	 * does not see the kernel's io_uring writes into it.
	 */
	memset(req.buf, 0xa5, len);
	ret = inproc_queue_run(&d->iq, 0, &req);
	/* The request is still the target's: the next read must not take
	 * its tag, so say why everything after this fails. */
	CHECK(ret != -ETIMEDOUT, "read of %u bytes at byte %llu: no answer from the target",
	      len, (unsigned long long)off);
	return ret;
}

uint64_t vt_dev_counter(struct vt_dev *d, const char *name)
{
	uint64_t v = inproc_tgt_counter(&d->tgt, name);

	/* A counter that is not reported must not compare equal to
	 * another one that is not either. */
	CHECK(v != UINT64_MAX, "the target reports no counter %s", name);
	return v;
}
