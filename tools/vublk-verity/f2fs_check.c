// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_check.c - `vublk-verity f2fs check`: verify every block of the
 * verity files of an f2fs image against their trees and descriptors.
 *
 * Each file goes through lib/merkle's verifier as the kernel's reads do
 * (fs/verity/verify.c): the tree, read from the file's blocks past EOF
 * (fs/f2fs/verity.c), is trusted only through the root hash of the
 * descriptor.  The data is read in whole 4 KiB pages with whatever the
 * image holds past i_size, as f2fs reads a verity file
 * (f2fs_readpage_limit()), so Merkle blocks past EOF in the last page
 * must be zero, as verify_data_block() requires.
 *
 * A bad block is then located: walking from the root down, the first
 * tree block whose hash differs from the one its parent (or the root
 * hash) holds is where the damage is; if every tree block holds, the
 * data block itself is.  Consecutive bad blocks with the same cause make
 * one line: file, byte offsets, tree level.
 *
 * Files are checked by several threads, each with its own buffer and
 * cache; their reports are printed in the order the files were found.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

#define CHECK_BATCH_BYTES (1U << 20)
/* Hash blocks kept per thread; a sequential pass needs one path. */
#define CHECK_CACHE_BYTES (16U << 20)
#define CHECK_READAHEAD_BLOCKS 32
/* Bad runs listed per file without -v. */
#define CHECK_LISTED_RUNS 20
#define PROGRESS_INTERVAL_NS 200000000L

enum file_outcome { OUTCOME_NONE, OUTCOME_HELD, OUTCOME_BAD, OUTCOME_SKIPPED };

struct file_result {
	bool done;
	enum file_outcome outcome;
	char *report;		/* stderr lines, in order */
	size_t report_len;
	char digest_line[2 * MERKLE_MAX_DIGEST_SIZE + 16];
};

struct checker {
	const struct vv_f2fs_image *im;
	bool verbose;
	pthread_mutex_t lock;
	pthread_cond_t file_done;
	size_t next;			/* next file to take */
	uint64_t bytes_done;
	struct file_result *results;
};

/* Where a bad block's verification went wrong. */
enum bad_kind { BAD_DATA, BAD_TREE, BAD_PAST_EOF, BAD_UNLOCATED };

/* A run of bad data blocks with one cause. */
struct bad_run {
	enum bad_kind kind;
	unsigned level;		/* BAD_TREE: the tree level */
	uint64_t tree_block;	/* BAD_TREE: its block in the tree */
	uint64_t first, count;	/* data blocks */
};

/* One file being checked by one thread. */
struct file_check {
	const struct vv_f2fs_image *im;
	const char *path;
	const struct f2fslayout_file *file;
	const struct f2fslayout_image *img;
	struct f2fslayout_file_tree_io io;
	FILE *out;
	bool verbose;
	const uint8_t *batch;	/* the blocks being verified */
	uint64_t batch_first;
	uint8_t *tree_block;	/* scratch: one block */
	struct bad_run run;
	uint64_t bad_blocks, runs;
};

/* The image offset of file offset off, or F2FSLAYOUT_HOLE. */
static uint64_t image_offset(const struct f2fslayout_file *f, uint64_t off)
{
	size_t i = f2fslayout_file_find_extent(f, off);

	if (i == f->nr_extents || f->extents[i].image_off == F2FSLAYOUT_HOLE)
		return F2FSLAYOUT_HOLE;
	return f->extents[i].image_off + off - f->extents[i].file_off;
}

static void print_image_offset(FILE *out, const struct f2fslayout_file *f,
			       uint64_t off)
{
	uint64_t at = image_offset(f, off);

	if (at == F2FSLAYOUT_HOLE)
		fprintf(out, "a hole in the image");
	else
		fprintf(out, "image offset %llu", (unsigned long long)at);
}

/*
 * Find why data block b (held in data) failed: walk from the root down
 * to the first tree block that does not hash to what its parent holds,
 * as verify_data_block() would have checked it with a cold cache.
 */
static void locate_bad_block(struct file_check *c, uint64_t b,
			     const uint8_t *data, struct bad_run *r)
{
	const struct merkle_geometry *g = &c->img->geometry;
	const struct merkle_params *p = &c->img->params;
	uint8_t want[MERKLE_MAX_DIGEST_SIZE], have[MERKLE_MAX_DIGEST_SIZE];
	uint64_t idx;

	*r = (struct bad_run){ .kind = BAD_UNLOCATED, .first = b, .count = 1 };
	if (b >= g->data_blocks) {
		r->kind = BAD_PAST_EOF;
		return;
	}
	memcpy(want, c->img->root_hash, g->digest_size);
	for (unsigned level = g->num_levels; level-- > 0;) {
		idx = g->level_start[level] + (b >> (g->log_arity * (level + 1)));
		if (f2fslayout_file_tree_read(&c->io, c->tree_block,
					      g->block_size,
					      idx * g->block_size) ||
		    merkle_hash_blocks(p, c->tree_block, 1, have))
			return;
		if (memcmp(want, have, g->digest_size)) {
			r->kind = BAD_TREE;
			r->level = level;
			r->tree_block = idx;
			return;
		}
		/* The child's hash: this block's entry for b's subtree. */
		idx = (b >> (g->log_arity * level)) & (g->hashes_per_block - 1);
		memcpy(want, c->tree_block + idx * g->digest_size,
		       g->digest_size);
	}
	if (!merkle_hash_blocks(p, data, 1, have) &&
	    memcmp(want, have, g->digest_size))
		r->kind = BAD_DATA;
}

static void print_run(struct file_check *c, const struct bad_run *r)
{
	const struct merkle_geometry *g = &c->img->geometry;
	uint64_t off = r->first * g->block_size;
	uint64_t end = (r->first + r->count) * g->block_size - 1;

	c->runs++;
	if (!c->verbose && c->runs > CHECK_LISTED_RUNS)
		return;
	fprintf(c->out, "vublk-verity f2fs: %s:%s: bytes %llu..%llu (%llu block%s of %u from block %llu, ",
		c->im->name, c->path, (unsigned long long)off,
		(unsigned long long)end, (unsigned long long)r->count,
		r->count == 1 ? "" : "s", g->block_size,
		(unsigned long long)r->first);
	print_image_offset(c->out, c->file, off);
	fprintf(c->out, "): ");
	switch (r->kind) {
	case BAD_DATA:
		fprintf(c->out, "data does not match %s\n",
			g->num_levels ? "its hash in Merkle tree level 0"
				      : "the root hash");
		break;
	case BAD_TREE:
		fprintf(c->out, "Merkle tree level %u block %llu (file offset %llu, ",
			r->level, (unsigned long long)r->tree_block,
			(unsigned long long)(c->io.tree_pos +
					     r->tree_block * g->block_size));
		print_image_offset(c->out, c->file,
				   c->io.tree_pos + r->tree_block * g->block_size);
		if (r->level + 1 == g->num_levels)
			fprintf(c->out, ") does not match the root hash\n");
		else
			fprintf(c->out, ") does not match its hash in level %u\n",
				r->level + 1);
		break;
	case BAD_PAST_EOF:
		fprintf(c->out, "past EOF but not zero, which fs-verity requires\n");
		break;
	case BAD_UNLOCATED:
		fprintf(c->out, "does not verify, but no tree or data block could be blamed (tree unreadable?)\n");
		break;
	}
}

/* A vv_bad_block_fn: extend the current run or start a new one. */
static void note_bad_block(void *ctx, uint64_t b)
{
	struct file_check *c = ctx;
	unsigned log_bs = c->img->params.log_blocksize;
	struct bad_run r;

	c->bad_blocks++;
	locate_bad_block(c, b, c->batch + ((b - c->batch_first) << log_bs), &r);
	if (c->run.count && r.kind == c->run.kind && r.level == c->run.level &&
	    r.tree_block == c->run.tree_block &&
	    b == c->run.first + c->run.count) {
		c->run.count++;
		return;
	}
	if (c->run.count)
		print_run(c, &c->run);
	c->run = r;
}

/*
 * Every Merkle block of whole 4 KiB pages up to i_size: data blocks, and
 * past EOF the ones that must be zero.
 */
static uint64_t blocks_to_verify(const struct f2fslayout_image *img)
{
	uint64_t pages = img->params.data_size / 4096 +
			 !!(img->params.data_size % 4096);
	uint64_t blocks = (pages * 4096) >> img->params.log_blocksize;

	return blocks > img->geometry.data_blocks ? blocks
						  : img->geometry.data_blocks;
}

static int verify_file_blocks(struct file_check *c, struct checker *k,
			      struct merkle_tree *tree, uint8_t *buf)
{
	unsigned log_bs = c->img->params.log_blocksize;
	uint64_t total = blocks_to_verify(c->img);
	size_t batch = CHECK_BATCH_BYTES >> log_bs, n;
	int err = 0;

	for (uint64_t first = 0; first < total && !err; first += n) {
		n = total - first < batch ? (size_t)(total - first) : batch;
		err = f2fslayout_file_pread(k->im->fs, c->file, buf,
					    n << log_bs, first << log_bs);
		if (err) {
			vv_f2fs_file_error(c->out, k->im, c->path,
					   "can't read offset %llu: %s",
					   (unsigned long long)(first << log_bs),
					   f2fslayout_strerror(err));
			return err;
		}
		c->batch = buf;
		c->batch_first = first;
		err = vv_verify_blocks(tree, first, buf, n,
				       CHECK_READAHEAD_BLOCKS, note_bad_block,
				       c);
		if (err)
			vv_f2fs_file_error(c->out, k->im, c->path,
					   "can't verify block %llu: %s",
					   (unsigned long long)first,
					   f2fslayout_strerror(err));
		pthread_mutex_lock(&k->lock);
		k->bytes_done += n << log_bs;
		pthread_mutex_unlock(&k->lock);
	}
	return err;
}

/* The summary of a file with bad blocks. */
static void report_bad_file(struct file_check *c)
{
	if (c->run.count)
		print_run(c, &c->run);
	if (c->runs > CHECK_LISTED_RUNS && !c->verbose)
		vv_f2fs_file_error(c->out, c->im, c->path,
				   "... and %llu more runs of bad blocks (use -v to list them all)",
				   (unsigned long long)(c->runs -
							CHECK_LISTED_RUNS));
	vv_f2fs_file_error(c->out, c->im, c->path,
			   "%llu of %llu blocks do not match the Merkle tree",
			   (unsigned long long)c->bad_blocks,
			   (unsigned long long)blocks_to_verify(c->img));
}

static enum file_outcome verify_file(struct file_check *c, struct checker *k,
				     struct merkle_cache *cache, uint8_t *buf)
{
	struct merkle_tree *tree;
	int err;

	err = merkle_tree_open(&tree, &c->img->params, c->img->root_hash,
			       cache, f2fslayout_file_tree_read, &c->io);
	if (err) {
		vv_f2fs_file_error(c->out, k->im, c->path,
				   "can't open its Merkle tree: %s",
				   f2fslayout_strerror(err));
		return OUTCOME_SKIPPED;
	}
	err = verify_file_blocks(c, k, tree, buf);
	merkle_tree_close(tree);
	if (err)
		return OUTCOME_SKIPPED;
	if (c->bad_blocks) {
		report_bad_file(c);
		return OUTCOME_BAD;
	}
	return OUTCOME_HELD;
}

static void digest_line(const struct f2fslayout_image *img, char *line,
			size_t size)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	char hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];

	/* The descriptor passed merkle_descriptor_parse(). */
	merkle_descriptor_digest((const void *)img->desc, digest);
	vv_bin2hex(digest, img->geometry.digest_size, hex);
	snprintf(line, size, "%s:%s", merkle_hash_alg_name(img->params.hash_alg),
		 hex);
}

static void check_one(struct checker *k, size_t i,
		      struct merkle_cache *cache, uint8_t *buf)
{
	struct file_result *r = &k->results[i];
	const struct vv_f2fs_entry *e = &k->im->files[i];
	struct f2fslayout_image img;
	struct f2fslayout_file f;
	struct file_check c = {
		.im = k->im, .path = e->path, .file = &f, .img = &img,
		.verbose = k->verbose,
	};
	int opened;

	c.out = open_memstream(&r->report, &r->report_len);
	if (!c.out) {
		r->outcome = OUTCOME_SKIPPED;
		return;
	}
	opened = vv_f2fs_open_verity(c.out, k->im, e, &f, &img);
	r->outcome = opened < 0 ? OUTCOME_SKIPPED : OUTCOME_NONE;
	if (opened > 0) {
		c.io = (struct f2fslayout_file_tree_io){
			.fs = k->im->fs, .file = &f,
			.tree_pos = img.layout.tree_pos,
			.tree_size = img.layout.tree_size,
		};
		c.tree_block = malloc(img.geometry.block_size);
		r->outcome = c.tree_block ? verify_file(&c, k, cache, buf)
					  : OUTCOME_SKIPPED;
		digest_line(&img, r->digest_line, sizeof(r->digest_line));
		free(c.tree_block);
		f2fslayout_image_release(&img);
		f2fslayout_file_release(&f);
	}
	if (fclose(c.out))
		r->outcome = OUTCOME_SKIPPED;
}

static void *check_worker(void *arg)
{
	struct checker *k = arg;
	struct merkle_cache *cache = merkle_cache_new(CHECK_CACHE_BYTES);
	uint8_t *buf = malloc(CHECK_BATCH_BYTES);
	size_t i;

	for (;;) {
		pthread_mutex_lock(&k->lock);
		i = k->next++;
		pthread_mutex_unlock(&k->lock);
		if (i >= k->im->nr_files)
			break;
		if (cache && buf)
			check_one(k, i, cache, buf);
		else
			k->results[i].outcome = OUTCOME_SKIPPED;
		pthread_mutex_lock(&k->lock);
		k->results[i].done = true;
		pthread_cond_signal(&k->file_done);
		pthread_mutex_unlock(&k->lock);
	}
	free(buf);
	merkle_cache_free(cache);
	return NULL;
}

/* "\r" progress on a terminal: files done, bytes verified. */
static void show_progress(const struct checker *k, size_t printed,
			  bool progress)
{
	if (progress)
		fprintf(stderr, "\rchecking %s: %zu of %zu files, %llu MiB verified\033[K",
			k->im->name, printed, k->im->nr_files,
			(unsigned long long)(k->bytes_done >> 20));
}

static void print_result(const struct checker *k, size_t i, bool progress)
{
	const struct file_result *r = &k->results[i];

	if (progress)
		fprintf(stderr, "\r\033[K");
	if (r->report_len)
		fwrite(r->report, 1, r->report_len, stderr);
	if (r->outcome == OUTCOME_HELD)
		printf("%s %s\n", r->digest_line, k->im->files[i].path);
	fflush(stdout);
}

/* Print each file's result in order as soon as it and those before are in. */
static void print_in_order(struct checker *k)
{
	bool progress = isatty(STDERR_FILENO);
	size_t printed = 0;
	struct timespec until;

	pthread_mutex_lock(&k->lock);
	while (printed < k->im->nr_files) {
		if (k->results[printed].done) {
			pthread_mutex_unlock(&k->lock);
			print_result(k, printed++, progress);
			pthread_mutex_lock(&k->lock);
			continue;
		}
		show_progress(k, printed, progress);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PROGRESS_INTERVAL_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&k->file_done, &k->lock, &until);
	}
	pthread_mutex_unlock(&k->lock);
	if (progress)
		fprintf(stderr, "\r\033[K");
}

static int summarize(const struct checker *k)
{
	size_t counts[OUTCOME_SKIPPED + 1] = { 0 };

	for (size_t i = 0; i < k->im->nr_files; i++)
		counts[k->results[i].outcome]++;
	if (!counts[OUTCOME_BAD] && !counts[OUTCOME_SKIPPED] &&
	    !k->im->incomplete)
		return VV_EXIT_OK;
	vv_error("'%s': %zu verity files held, %zu do not match their Merkle trees, %zu could not be checked%s",
		 k->im->name, counts[OUTCOME_HELD], counts[OUTCOME_BAD],
		 counts[OUTCOME_SKIPPED],
		 k->im->incomplete ? ", and part of the image could not be walked" : "");
	return VV_EXIT_FAILURE;
}

static unsigned thread_count(unsigned threads, size_t files)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!threads)
		threads = cpus > 0 ? (unsigned)cpus : 1;
	if (threads > files)
		threads = files ? (unsigned)files : 1;
	return threads;
}

int vv_f2fs_check(const struct vv_f2fs_image *im, unsigned threads,
		  bool verbose)
{
	struct checker k = { .im = im, .verbose = verbose };
	pthread_t *tids;
	unsigned started = 0;
	int status;

	threads = thread_count(threads, im->nr_files);
	k.results = calloc(im->nr_files ? im->nr_files : 1, sizeof(*k.results));
	tids = calloc(threads, sizeof(*tids));
	if (!k.results || !tids) {
		free(k.results);
		free(tids);
		vv_error("out of memory checking '%s'", im->name);
		return VV_EXIT_USAGE;
	}
	pthread_mutex_init(&k.lock, NULL);
	pthread_cond_init(&k.file_done, NULL);
	while (started < threads &&
	       !pthread_create(&tids[started], NULL, check_worker, &k))
		started++;
	if (!started)
		check_worker(&k);	/* no thread: check on this one */
	print_in_order(&k);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	status = summarize(&k);
	for (size_t i = 0; i < im->nr_files; i++)
		free(k.results[i].report);
	pthread_cond_destroy(&k.file_done);
	pthread_mutex_destroy(&k.lock);
	free(k.results);
	free(tids);
	return status;
}
