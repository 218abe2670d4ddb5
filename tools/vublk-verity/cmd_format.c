// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_format.c - `vublk-verity format`: append a Merkle tree, descriptor
 * and trailer to an image, where f2fs keeps a verity file's metadata.
 *
 * The steps follow the kernel's enable path (fs/verity/enable.c:
 * enable_verity()): settle the parameters, let the filesystem make room
 * (f2fs_begin_enable_verity() -> f2fslayout_prepare()), build the tree
 * into that room (build_merkle_tree()), then store the descriptor and
 * make it valid last (f2fs_end_enable_verity() ->
 * f2fslayout_write_metadata(), which flushes before and after writing the
 * trailer).  Everything that can be refused is refused before the first
 * write, and bytes [0, data_size) are only ever read.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

enum {
	OPT_DATA_SIZE = VV_OPT_SALT + 1,
	OPT_FORCE,
};

static const struct option format_longopts[] = {
	{ "data-size",	required_argument, NULL, OPT_DATA_SIZE },
	VV_TREE_LONGOPTS,
	{ "force",	no_argument,	   NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 }
};

struct format_options {
	struct vv_tree_options tree;
	bool data_size_set;
	uint64_t data_size;
	bool force;
};

/* A vv_option_fn: --force or --data-size. */
static bool parse_format_option(int c, const char *arg, void *ctx)
{
	struct format_options *o = ctx;

	if (c == OPT_FORCE) {
		o->force = true;
		return true;
	}
	if (!vv_option_once(o->data_size_set, "--data-size"))
		return false;
	o->data_size_set = true;
	if (!vv_parse_size("--data-size", arg, &o->data_size))
		return false;
	/* Every byte after the data is replaced: 0 would seal nothing and
	 * drop the whole image, a slip (an empty file needs no option). */
	if (!o->data_size) {
		vv_usage_error("invalid --data-size '%s': no data would be left to protect; give the number of bytes of data, or leave it out for the whole image",
			       arg);
		return false;
	}
	return true;
}

/*
 * The data size of an image that already ends with a vublk trailer, or
 * that lost it but kept its descriptor: only with --force, and then the
 * recorded one unless --data-size overrides it.  A larger --data-size
 * would turn old metadata into "data".
 */
static bool data_size_of_formatted(const struct format_options *o,
				   const struct vv_file *img,
				   uint64_t *data_size)
{
	struct f2fslayout_image old;
	int err = f2fslayout_read(img->fd, &old);
	enum f2fslayout_error_kind kind = f2fslayout_error_kind(err);
	/* With its trailer lost, the descriptor says where the data ends. */
	bool lost = err == F2FSLAYOUT_E_TRAILER_MISSING;
	uint64_t recorded = !err || lost ? old.layout.data_size : 0;

	if (!err)
		f2fslayout_image_release(&old);
	if (kind == F2FSLAYOUT_ERR_IO || kind == F2FSLAYOUT_ERR_NOMEM) {
		vv_error("can't read '%s': %s", img->name,
			 f2fslayout_strerror(err));
		return false;
	}
	if (!o->force) {
		if (lost)
			vv_error("'%s' is a sealed image that lost its trailer (cut short or damaged): restore it whole, or give --force to seal its %llu bytes of data again (as it is, its old tree would be sealed as data)",
				 img->name, (unsigned long long)recorded);
		else
			vv_error("'%s' already has vublk metadata: use --force to replace it",
				 img->name);
		return false;
	}
	if (err && !lost) {
		if (o->data_size_set) {
			*data_size = o->data_size;
			return true;
		}
		vv_error("'%s' has damaged vublk metadata (%s): give --data-size with --force to say where its data ends",
			 img->name, f2fslayout_strerror(err));
		return false;
	}
	*data_size = o->data_size_set ? o->data_size : recorded;
	if (*data_size > recorded) {
		vv_error("--data-size %llu is larger than the data size %llu recorded in '%s': the bytes after it are metadata, not data",
			 (unsigned long long)*data_size,
			 (unsigned long long)recorded, img->name);
		return false;
	}
	return true;
}

/* How many bytes of the image are data; nothing is written yet. */
static bool choose_data_size(const struct format_options *o,
			     const struct vv_file *img, uint64_t image_size,
			     uint64_t *data_size)
{
	int probe = f2fslayout_probe(img->fd);

	if (probe < 0) {
		vv_error("can't read '%s': %s", img->name,
			 f2fslayout_strerror(probe));
		return false;
	}
	if (probe == 1) {
		if (!data_size_of_formatted(o, img, data_size))
			return false;
	} else {
		/* Must be taken now: the metadata will be appended after
		 * it. */
		*data_size = o->data_size_set ? o->data_size : image_size;
	}
	if (*data_size > image_size) {
		vv_error("--data-size %llu is larger than '%s' (%llu bytes): give at most the file size",
			 (unsigned long long)*data_size, img->name,
			 (unsigned long long)image_size);
		return false;
	}
	return true;
}

/* Parameters and layout for data_size, all validated. */
static bool plan_image(const struct vv_file *img, struct merkle_params *p,
		       struct f2fslayout_layout *l)
{
	struct merkle_geometry g;
	int err = merkle_geometry_init(&g, p);

	if (!err)
		err = f2fslayout_plan(p->data_size, g.tree_size,
				      MERKLE_DESCRIPTOR_SIZE, l);
	if (err) {
		vv_error("can't format '%s' with %llu bytes of data: %s",
			 img->name, (unsigned long long)p->data_size,
			 f2fslayout_strerror(err));
		return false;
	}
	return true;
}

/*
 * A format that fails after f2fslayout_prepare() cuts the image back to
 * its data (f2fslayout_undo_prepare()), and so does one that a signal
 * ends (^C, kill, SIGXFSZ past `ulimit -f`): the handler cuts, then the
 * signal takes its default course.  Otherwise a partial tree would stay
 * past the data, and a second format would seal it as data.  Signals the
 * caller ignores stay ignored (nohup); SIGKILL leaves the file as it is.
 */
static const int format_end_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
					  SIGXFSZ };
#define FORMAT_END_SIGNALS \
	(sizeof(format_end_signals) / sizeof(format_end_signals[0]))

/* What the handler cuts, and the thread that writes the image: set
 * before the handler is installed. */
static int undo_fd = -1;
static struct f2fslayout_layout undo_layout;
static pid_t undo_tid;

static void undo_on_signal(int sig)
{
	/* A hashing thread took it: the writing thread cuts, between two
	 * of its writes, so that none of them can grow the file again. */
	if (gettid() != undo_tid) {
		tgkill(getpid(), undo_tid, sig);
		return;
	}
	(void)f2fslayout_undo_prepare(undo_fd, &undo_layout);
	signal(sig, SIG_DFL);
	raise(sig);	/* the default action, once we return */
}

/* Catch the signals in format_end_signals (old: their actions before). */
static void undo_on_signals(int fd, const struct f2fslayout_layout *l,
			    struct sigaction old[FORMAT_END_SIGNALS])
{
	struct sigaction sa = { .sa_handler = undo_on_signal };

	undo_fd = fd;
	undo_layout = *l;
	undo_tid = gettid();
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < FORMAT_END_SIGNALS; i++) {
		sigaction(format_end_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(format_end_signals[i], &sa, NULL);
	}
}

static void undo_on_signals_end(const struct sigaction old[FORMAT_END_SIGNALS])
{
	for (size_t i = 0; i < FORMAT_END_SIGNALS; i++)
		sigaction(format_end_signals[i], &old[i], NULL);
}

/* After a failure past prepare: cut the image back to its data. */
static void undo_format(const struct vv_file *img,
			const struct f2fslayout_layout *l)
{
	int err = f2fslayout_undo_prepare(img->fd, l);

	if (err)
		vv_error("can't cut '%s' back to its %llu bytes of data: %s (truncate it to that size before formatting it again)",
			 img->name, (unsigned long long)l->data_size,
			 f2fslayout_strerror(err));
}

/* Build the tree into the room prepare made, then write the metadata;
 * false after saying why. */
static bool write_tree_and_metadata(const struct vv_file *img,
				    unsigned threads,
				    const struct merkle_params *p,
				    const struct f2fslayout_layout *l,
				    struct merkle_descriptor *desc)
{
	struct f2fslayout_tree_io tree = {
		.fd = img->fd,
		.tree_pos = l->tree_pos,
		.tree_size = l->tree_size,
	};
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	struct vv_tree_writer writer;
	struct vv_region data;
	int err;

	vv_region_init(&data, img, 0);
	vv_tree_writer_init(&writer, f2fslayout_tree_write, &tree);
	err = merkle_build_tree(p, vv_region_read, &data,
				vv_tree_writer_write, &writer, threads,
				root_hash);
	if (!err)
		err = vv_tree_writer_flush(&writer);
	vv_tree_writer_destroy(&writer);
	if (err) {
		vv_report_build_error(img->name, &data, NULL,
				      f2fslayout_strerror(err));
		return false;
	}
	merkle_descriptor_init(desc, p, root_hash);
	err = f2fslayout_write_metadata(img->fd, l, desc);
	if (err) {
		vv_error("can't write the descriptor and trailer of '%s': %s",
			 img->name, f2fslayout_strerror(err));
		return false;
	}
	return true;
}

/* The writing half: room for the tree, the tree, then the metadata;
 * after a failure or a signal, the data alone again. */
static bool write_image(const struct vv_file *img, unsigned threads,
			const struct merkle_params *p,
			const struct f2fslayout_layout *l,
			struct merkle_descriptor *desc)
{
	struct sigaction old[FORMAT_END_SIGNALS];
	bool ok;
	int err;

	undo_on_signals(img->fd, l, old);
	/* A failed prepare changed nothing, or already cut to the data. */
	err = f2fslayout_prepare(img->fd, l);
	if (err) {
		vv_error("can't make room for the Merkle tree in '%s': %s",
			 img->name, f2fslayout_strerror(err));
		ok = false;
	} else {
		ok = write_tree_and_metadata(img, threads, p, l, desc);
		if (!ok)
			undo_format(img, l);
	}
	undo_on_signals_end(old);
	return ok;
}

static bool format_image(const struct format_options *o, const char *name)
{
	struct merkle_params p = o->tree.params;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_descriptor desc;
	struct f2fslayout_layout l;
	uint64_t image_size;
	struct vv_file img;
	bool ok;
	int err;

	if (!vv_open_regular(&img, name, O_RDWR, &image_size))
		return false;
	ok = choose_data_size(o, &img, image_size, &p.data_size) &&
	     plan_image(&img, &p, &l) &&
	     write_image(&img, o->tree.threads, &p, &l, &desc);
	if (!vv_close(&img) || !ok)
		return false;

	err = merkle_descriptor_digest(&desc, digest);
	if (err) {
		vv_error("can't hash the descriptor of '%s': %s", name,
			 merkle_strerror(err));
		return false;
	}
	vv_print_digest(p.hash_alg, digest, name);
	/* fs-verity seals any size; a block device exposes whole sectors,
	 * at least one. */
	if (p.data_size % 512 || !p.data_size)
		vv_error("warning: '%s': its %llu bytes of data are not a positive multiple of 512: vublk add will not serve it as a device (verify and fsverity digest can still check it)",
			 name, (unsigned long long)p.data_size);
	return true;
}

int vv_cmd_format(int argc, char *argv[])
{
	struct format_options o = { 0 };

	if (!vv_parse_options(&argc, &argv, "", format_longopts, &o.tree,
			      parse_format_option, &o))
		return VV_EXIT_USAGE;

	if (argc != 1)
		return vv_usage_error("expected exactly one IMAGE, %d given",
				      argc);
	return format_image(&o, argv[0]) ? VV_EXIT_OK : VV_EXIT_FAILURE;
}
