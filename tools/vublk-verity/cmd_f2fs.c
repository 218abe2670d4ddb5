// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_f2fs.c - `vublk-verity f2fs list|check IMAGE [PATH...]`: the
 * fs-verity files inside a real f2fs image, without mounting it.
 *
 * lib/f2fslayout's f2fs parser reads the image; each PATH (default: the
 * root) is a file or a directory walked recursively.  `list` prints each
 * verity file's digest as `fsverity measure` does ("ALG:HEX PATH", PATH
 * from the image's root); `check` also verifies every block of each file
 * against its tree and descriptor (f2fs_check.c).  A verity file this
 * tool cannot read (compressed, encrypted, damaged) is named on stderr
 * and skipped, and the exit status says so; files without fs-verity
 * found by walking are passed over in silence.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

enum {
	OPT_JSON = VV_OPT_SALT + 1,
	OPT_JOBS = 'j',
	OPT_VERBOSE = 'v',
};

static const struct option f2fs_longopts[] = {
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "jobs",	required_argument, NULL, OPT_JOBS },
	{ "verbose",	no_argument,	   NULL, OPT_VERBOSE },
	{ NULL, 0, NULL, 0 }
};

struct f2fs_options {
	bool check;		/* else list */
	bool json;
	bool verbose;
	unsigned threads;
};

void vv_f2fs_file_error(FILE *out, const struct vv_f2fs_image *im,
			const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "vublk-verity f2fs: %s:%s: ", im->name, path);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* A vv_option_fn: --json (list), -j and -v (check). */
static bool parse_f2fs_option(int c, const char *arg, void *ctx)
{
	struct f2fs_options *o = ctx;

	if (c == OPT_JOBS && o->check)
		return vv_parse_jobs(arg, &o->threads);
	if (c == OPT_VERBOSE && o->check) {
		o->verbose = true;
		return true;
	}
	if (c == OPT_JSON && !o->check) {
		o->json = true;
		return true;
	}
	vv_usage_error("option '%s' is for `f2fs %s` only",
		       c == OPT_JSON ? "--json" :
		       c == OPT_JOBS ? "--jobs" : "--verbose",
		       o->check ? "list" : "check");
	return false;
}

/* The walk collects regular files; unreadable directories are named. */
struct collect {
	struct vv_f2fs_image *im;
	size_t cap;
	bool first;		/* the next entry is the PATH itself */
};

static int add_file(struct collect *c, const struct f2fslayout_dirent *e,
		    bool named)
{
	struct vv_f2fs_image *im = c->im;
	struct vv_f2fs_entry *v;

	if (im->nr_files == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		v = realloc(im->files, c->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		im->files = v;
	}
	v = &im->files[im->nr_files];
	v->path = strdup(e->path);
	if (!v->path)
		return -ENOMEM;
	v->ino = e->ino;
	v->named = named;
	im->nr_files++;
	return 0;
}

/* An f2fslayout_walk_fn. */
static int collect_entry(void *ctx, const struct f2fslayout_dirent *e)
{
	struct collect *c = ctx;
	bool named = c->first;
	int err = 0;

	c->first = false;
	if (e->err) {
		vv_f2fs_file_error(stderr, c->im, e->path, "skipped: %s",
				   f2fslayout_strerror(e->err));
		c->im->incomplete = true;
	} else if (e->type == F2FSLAYOUT_FT_REG_FILE) {
		err = add_file(c, e, named);
	} else if (named && e->type != F2FSLAYOUT_FT_DIR) {
		vv_f2fs_file_error(stderr, c->im, e->path, "%s",
				   f2fslayout_strerror(F2FSLAYOUT_E_F2FS_NOT_REGULAR));
		c->im->incomplete = true;
	}
	return err;
}

static int collect_files(struct vv_f2fs_image *im, char **paths, int npaths)
{
	static char *root[] = { "/" };
	struct collect c = { .im = im };
	int err;

	if (npaths == 0) {
		paths = root;
		npaths = 1;
	}
	for (int i = 0; i < npaths; i++) {
		c.first = true;
		err = f2fslayout_fs_walk(im->fs, paths[i], collect_entry, &c);
		if (err == -ENOMEM) {
			vv_error("out of memory listing '%s'", im->name);
			return VV_EXIT_USAGE;
		}
		if (err) {
			vv_f2fs_file_error(stderr, im, paths[i], "%s",
					   f2fslayout_strerror(err));
			im->incomplete = true;
		}
	}
	return VV_EXIT_OK;
}

static void print_list_json(const struct vv_f2fs_entry *e,
			    const struct f2fslayout_image *img,
			    const char *digest_hex, bool *first)
{
	char salt[2 * MERKLE_MAX_SALT_SIZE + 1];
	const char *alg = merkle_hash_alg_name(img->params.hash_alg);

	vv_bin2hex(img->params.salt, img->params.salt_size, salt);
	printf("%s\n  {\"path\": ", *first ? "" : ",");
	vv_print_json_string(e->path);
	printf(", \"digest\": \"%s:%s\", \"size\": %llu, \"hash_algorithm\": \"%s\", \"block_size\": %u, \"salt\": \"%s\", \"sig_size\": %u}",
	       alg, digest_hex, (unsigned long long)img->params.data_size, alg,
	       img->geometry.block_size, salt, img->sig_size);
	*first = false;
}

int vv_f2fs_open_verity(FILE *out, const struct vv_f2fs_image *im,
			const struct vv_f2fs_entry *e, struct f2fslayout_file *f,
			struct f2fslayout_image *img)
{
	int err = f2fslayout_file_open(im->fs, e->ino, f);

	/* A file vublk cannot read (compressed, encrypted) is reported only
	 * when it matters: it is a verity file, or asked for by name. */
	if (err && (f->flags & F2FSLAYOUT_FILE_VERITY || e->named ||
		    f2fslayout_error_kind(err) != F2FSLAYOUT_ERR_UNSUPPORTED)) {
		vv_f2fs_file_error(out, im, e->path, "skipped: %s",
				   f2fslayout_strerror(err));
		return -1;
	}
	if (err)
		return 0;
	if (!(f->flags & F2FSLAYOUT_FILE_VERITY) && !e->named) {
		f2fslayout_file_release(f);
		return 0;
	}
	err = f2fslayout_file_verity(im->fs, f, img);
	if (err) {
		vv_f2fs_file_error(out, im, e->path, "skipped: %s",
				   f2fslayout_strerror(err));
		f2fslayout_file_release(f);
		return -1;
	}
	return 1;
}

/* `f2fs list`: the digest of every verity file, fsverity measure style. */
static int list_files(const struct vv_f2fs_image *im, bool json)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	char hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	struct f2fslayout_image img;
	struct f2fslayout_file f;
	bool failed = im->incomplete, first = true;
	int r;

	if (json)
		printf("[");
	for (size_t i = 0; i < im->nr_files; i++) {
		r = vv_f2fs_open_verity(stderr, im, &im->files[i], &f, &img);
		failed |= r < 0;
		if (r <= 0)
			continue;
		/* The descriptor passed merkle_descriptor_parse(). */
		merkle_descriptor_digest((const void *)img.desc, digest);
		vv_bin2hex(digest, img.geometry.digest_size, hex);
		if (json)
			print_list_json(&im->files[i], &img, hex, &first);
		else
			printf("%s:%s %s\n",
			       merkle_hash_alg_name(img.params.hash_alg), hex,
			       im->files[i].path);
		f2fslayout_image_release(&img);
		f2fslayout_file_release(&f);
	}
	if (json)
		printf("%s]\n", first ? "" : "\n");
	return failed ? VV_EXIT_FAILURE : VV_EXIT_OK;
}

static int open_image(struct vv_f2fs_image *im, struct vv_file *file)
{
	int err;

	if (!vv_open(file, im->name, O_RDONLY, 0))
		return VV_EXIT_USAGE;
	err = f2fslayout_fs_open(file->fd, &im->fs);
	if (err) {
		vv_error("can't read '%s' as an f2fs image: %s", im->name,
			 f2fslayout_strerror(err));
		vv_close(file);
		return VV_EXIT_USAGE;
	}
	return VV_EXIT_OK;
}

static void release_image(struct vv_f2fs_image *im)
{
	for (size_t i = 0; i < im->nr_files; i++)
		free(im->files[i].path);
	free(im->files);
	f2fslayout_fs_close(im->fs);
}

int vv_cmd_f2fs(int argc, char *argv[])
{
	struct f2fs_options o = { 0 };
	struct vv_f2fs_image im = { 0 };
	struct f2fslayout_fs_info info;
	struct vv_file file;
	int status;

	if (argc < 2 || (strcmp(argv[1], "list") && strcmp(argv[1], "check")))
		return vv_usage_error("expected 'list' or 'check' after 'f2fs'");
	o.check = strcmp(argv[1], "check") == 0;
	argc--;
	argv++;
	if (!vv_parse_options(&argc, &argv, "j:v", f2fs_longopts, NULL,
			      parse_f2fs_option, &o))
		return VV_EXIT_USAGE;
	if (argc < 1)
		return vv_usage_error("expected an IMAGE");

	im.name = argv[0];
	status = open_image(&im, &file);
	if (status != VV_EXIT_OK)
		return status;
	f2fslayout_fs_get_info(im.fs, &info);
	if (!info.clean)
		fprintf(stderr, "vublk-verity f2fs: %s: not cleanly unmounted: reading it as of its last checkpoint (version %llu)\n",
			im.name, (unsigned long long)info.checkpoint_version);
	status = collect_files(&im, argv + 1, argc - 1);
	if (status == VV_EXIT_OK)
		status = o.check ? vv_f2fs_check(&im, o.threads, o.verbose)
				 : list_files(&im, o.json);
	release_image(&im);
	if (!vv_close(&file) && status == VV_EXIT_OK)
		status = VV_EXIT_USAGE;
	return status;
}
