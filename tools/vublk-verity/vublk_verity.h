/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vublk_verity.h - declarations shared by the files of the vublk-verity
 * tool: the subcommand table entry, the option parsing helpers of
 * vublk_verity.c and the file helpers of fileio.c.  This is the tool's
 * counterpart of fsverity-utils' programs/fsverity.h; it is not a library
 * header and nothing outside tools/vublk-verity includes it.
 *
 * Conventions of every subcommand:
 *  - an error is reported by ONE line on stderr, "vublk-verity CMD: ...",
 *    saying what failed, on which file or value, why, and what to do;
 *  - exit status 0 on success, VV_EXIT_FAILURE when the work failed (an
 *    unusable file), VV_EXIT_USAGE for bad command-line input, as
 *    fsverity-utils does; verify alone uses 1 for "corruption found" and
 *    2 for "could not tell" (usage and I/O errors);
 *  - nothing is written before every input has been validated.
 */
#ifndef VUBLK_VERITY_H
#define VUBLK_VERITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <sys/types.h>

#include "merkle.h"

enum {
	VV_EXIT_OK = 0,
	VV_EXIT_FAILURE = 1,
	VV_EXIT_USAGE = 2,
};

struct vv_command {
	const char *name;
	int (*run)(int argc, char *argv[]);
	const char *summary;
	const char *usage;	/* option synopsis, one or more lines */
};

int vv_cmd_digest(int argc, char *argv[]);
int vv_cmd_format(int argc, char *argv[]);
int vv_cmd_verify(int argc, char *argv[]);
int vv_cmd_dump(int argc, char *argv[]);
int vv_cmd_sign(int argc, char *argv[]);
int vv_cmd_f2fs(int argc, char *argv[]);

/* ---- messages (vublk_verity.c) ---- */

/* "vublk-verity CMD: <message>\n" on stderr. */
void vv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* vv_error() plus a pointer to --help; returns VV_EXIT_USAGE. */
int vv_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- option parsing (vublk_verity.c) ---- */

struct option;

/*
 * getopt_long() values of the tree options, which digest and format
 * share; a subcommand numbers its own long options from
 * VV_OPT_SALT + 1.
 */
enum {
	VV_OPT_HASH_ALG = 256,
	VV_OPT_BLOCK_SIZE,
	VV_OPT_SALT,
	VV_OPT_JOBS = 'j',
};

/*
 * The long tree options, listed in the option table of every subcommand
 * that builds a tree (fsverity-utils' --hash-alg, --block-size and --salt,
 * plus -j/--jobs), so that they are spelled alike everywhere.
 */
#define VV_TREE_LONGOPTS \
	{ "hash-alg",	required_argument, NULL, VV_OPT_HASH_ALG }, \
	{ "block-size",	required_argument, NULL, VV_OPT_BLOCK_SIZE }, \
	{ "salt",	required_argument, NULL, VV_OPT_SALT }, \
	{ "jobs",	required_argument, NULL, VV_OPT_JOBS }

/* Tree parameters given on the command line (digest, format). */
struct vv_tree_options {
	struct merkle_params params;	/* data_size is filled in later */
	bool hash_alg_set;
	bool block_size_set;
	bool salt_set;
	bool threads_set;
	unsigned threads;		/* 0: one per online CPU */
};

/*
 * A subcommand's parser of one of its own options (opt is a value of its
 * option table other than the tree options); false after an error line.
 */
typedef bool (*vv_option_fn)(int opt, const char *arg, void *ctx);

/*
 * Parse the options of a subcommand (argv[0] is its name) with
 * getopt_long(): shortopts and longopts are its own options, plus, when
 * tree is not NULL, -j and the VV_TREE_LONGOPTS that longopts lists; those
 * go to *tree, first set to fsverity-utils' defaults (SHA-256, 4096-byte
 * blocks, no salt), each at most once.  The subcommand's own options go
 * to parse_option(opt, optarg, ctx).  An unknown option, a missing value
 * or a value parse_option refuses gets one error line and false; on
 * success *argc and *argv are left holding the operands only.
 */
bool vv_parse_options(int *argc, char **argv[], const char *shortopts,
		      const struct option *longopts,
		      struct vv_tree_options *tree,
		      vv_option_fn parse_option, void *ctx);

/*
 * --format and the dm-verity options of verify and dump, named as
 * veritysetup names them.  Their getopt_long() values are above any
 * subcommand's own (those count up from VV_OPT_SALT + 1).
 */
enum vv_format {
	VV_FORMAT_FSVERITY,		/* a vublk image (the default) */
	VV_FORMAT_DMVERITY,		/* data + veritysetup's hash area */
};

enum {
	VV_OPT_FORMAT = 512,
	VV_OPT_HASH_DEVICE,
	VV_OPT_ROOT_HASH,
	VV_OPT_HASH_OFFSET,
	VV_OPT_NO_SUPERBLOCK,
	/* Only with --no-superblock: the superblock's fields. */
	VV_OPT_DMV_HASH,
	VV_OPT_DATA_BLOCK_SIZE,
	VV_OPT_HASH_BLOCK_SIZE,
	VV_OPT_DATA_BLOCKS,
	VV_OPT_DMV_SALT,
	VV_OPT_DMV_HASH_TYPE,
	VV_OPT_DMV_END,
};

/* verify's: every dm-verity option. */
#define VV_DMV_VERIFY_LONGOPTS \
	{ "format",	required_argument, NULL, VV_OPT_FORMAT }, \
	{ "hash-device", required_argument, NULL, VV_OPT_HASH_DEVICE }, \
	{ "root-hash",	required_argument, NULL, VV_OPT_ROOT_HASH }, \
	{ "hash-offset", required_argument, NULL, VV_OPT_HASH_OFFSET }, \
	{ "no-superblock", no_argument,	   NULL, VV_OPT_NO_SUPERBLOCK }, \
	{ "hash",	required_argument, NULL, VV_OPT_DMV_HASH }, \
	{ "data-block-size", required_argument, NULL, VV_OPT_DATA_BLOCK_SIZE }, \
	{ "hash-block-size", required_argument, NULL, VV_OPT_HASH_BLOCK_SIZE }, \
	{ "data-blocks", required_argument, NULL, VV_OPT_DATA_BLOCKS }, \
	{ "salt",	required_argument, NULL, VV_OPT_DMV_SALT }, \
	{ "hash-type",	required_argument, NULL, VV_OPT_DMV_HASH_TYPE }

/* dump's: where the superblock is (--no-superblock only to refuse it). */
#define VV_DMV_DUMP_LONGOPTS \
	{ "format",	required_argument, NULL, VV_OPT_FORMAT }, \
	{ "hash-offset", required_argument, NULL, VV_OPT_HASH_OFFSET }, \
	{ "no-superblock", no_argument,	   NULL, VV_OPT_NO_SUPERBLOCK }

/* What those options say, parsed and each checked on its own. */
struct vv_dmv_options {
	enum vv_format format;
	const char *hash_device;	/* NULL: the hash area is in DATA */
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	size_t root_hash_size;		/* bytes given; 0: no --root-hash */
	/* hash_offset and the --no-superblock parameters, defaults as
	 * veritysetup's: sha256, 4096-byte blocks, no salt, the whole
	 * data device; same_device is set by vv_dmv_open(). */
	struct merkle_dmv_config cfg;
	/* The first dm-verity option given, and the first that only
	 * --no-superblock takes, by name ("--hash"); NULL if none. */
	const char *first_dmv_option;
	const char *first_param_option;
	uint32_t given;			/* bit (opt - VV_OPT_FORMAT) */
};

/* The defaults above. */
void vv_dmv_options_init(struct vv_dmv_options *o);
/* Whether opt is one of the VV_OPT_FORMAT.. options. */
bool vv_is_dmv_option(int opt);
/* Parse one of them (each at most once); false after an error line. */
bool vv_parse_dmv_option(int opt, const char *arg, struct vv_dmv_options *o);
/*
 * After all options: refuse the combinations that make no sense (one
 * usage error line): dm-verity options without --format=dm-verity, the
 * superblock's fields with a superblock, and for
 * verify a missing --root-hash or, without --hash-device, --hash-offset.
 * Returns VV_EXIT_OK or VV_EXIT_USAGE.
 */
int vv_dmv_options_check(const struct vv_dmv_options *o, bool verify);

/*
 * fsverity-utils takes each option at most once: when given_before, print
 * "OPT given twice" and return false.
 */
bool vv_option_once(bool given_before, const char *opt);

/*
 * A byte count: decimal, or with a K/M/G/T suffix (powers of 1024).
 * opt names the option in the error line.
 */
bool vv_parse_size(const char *opt, const char *arg, uint64_t *out);

/* -j/--jobs N: 1..1024 threads; false after an error line. */
bool vv_parse_jobs(const char *arg, unsigned *threads);

/* A JSON string: quoted, with '"', '\\' and control characters escaped,
 * and each byte that is not part of well-formed UTF-8 (a file name can
 * be any bytes) as U+FFFD; the text outputs keep the bytes. */
void vv_print_json_string(const char *s);

/* bin_len bytes to lower-case hex, NUL-terminated (2 * bin_len + 1). */
void vv_bin2hex(const uint8_t *bin, size_t bin_len, char *hex);

/* Print "ALG:HEX NAME" as `fsverity digest` does. */
void vv_print_digest(unsigned hash_alg, const uint8_t *digest,
		     const char *name);

/* ---- files (fileio.c) ---- */

struct vv_file {
	int fd;
	const char *name;
};

/*
 * open(2) name; on failure print "can't open 'NAME' for reading: REASON"
 * and return false.
 */
bool vv_open(struct vv_file *f, const char *name, int flags, mode_t mode);
/* open() for reading a regular file and get its size. */
bool vv_open_regular(struct vv_file *f, const char *name, int flags,
		     uint64_t *size);
/* Open name for reading and get its size: a regular file or a block
 * device.  False after an error line. */
bool vv_open_sized(struct vv_file *f, const char *name, uint64_t *size);
/* close(2), reporting a failure (delayed write errors show up here). */
bool vv_close(struct vv_file *f);
/* False after an error line when out, the output of option opt, is the
 * regular file in (the same inode; the same path when neither exists
 * yet): writing it would destroy in, which the line calls what ("the
 * image", "--key").  True when either is NULL. */
bool vv_output_not_input(const char *opt, const char *out, const char *what,
			 const char *in);

/* Exactly len bytes at off; 0, -errno, or -ENODATA at end of file. */
int vv_pread_full(int fd, void *buf, size_t len, uint64_t off);
int vv_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);
/* Create or replace the file name with the len bytes of buf, written in
 * order (so that name may be a pipe or /dev/stdout, as fsverity-utils'
 * outputs may); false after "error writing the <what> to 'name'". */
bool vv_write_new_file(const char *name, const char *what, const void *buf,
		       size_t len);
/* strerror() of those -errno values, with a clearer text for -ENODATA. */
const char *vv_io_error_text(int err);

/*
 * A region of a file seen through lib/merkle's merkle_read_fn and
 * merkle_write_fn callbacks: offset off of the region is byte base + off
 * of the file (e.g. the tree region starts at the image's tree position).
 * The callbacks may run on several threads at once; the first failure is
 * kept so that the caller can say which file and offset failed.
 */
struct vv_region {
	int fd;
	uint64_t base;
	const char *name;
	int error;		/* first failure: -errno, or 0 */
	uint64_t error_off;	/* its file offset */
};

void vv_region_init(struct vv_region *r, const struct vv_file *f,
		    uint64_t base);
int vv_region_read(void *ctx, void *buf, size_t len, uint64_t off);
int vv_region_write(void *ctx, const void *buf, size_t len, uint64_t off);

/*
 * One error line for a failed merkle_build_tree() of data_name: the
 * failed read of data or write of tree (may be NULL) when one failed,
 * else reason (the library's *_strerror() of the error).
 */
void vv_report_build_error(const char *data_name,
			   const struct vv_region *data,
			   const struct vv_region *tree, const char *reason);

/* ---- dm-verity images (dmverity.c) ---- */

/*
 * A data file and its dm-verity hash area (in another file, or in the
 * data file itself), opened for reading and checked by merkle_dmv_open():
 * params and the tree's offset on the hash file.
 */
struct vv_dmv_image {
	struct vv_file data;
	struct vv_file hash;		/* fd -1 when it is the data file */
	const struct vv_file *hash_file; /* &hash, or &data */
	uint64_t data_size;		/* the files' sizes */
	uint64_t hash_size;
	struct merkle_params params;
	uint64_t tree_off;
};

/*
 * Open data_name and o's hash device (o checked for verify) and read the
 * superblock or take o's parameters.  Returns VV_EXIT_OK, or after one
 * error line VV_EXIT_USAGE (a file that can't be opened or read, or
 * whose superblock or sizes do not describe a dm-verity image: without
 * usable parameters there is nothing to verify; the root hash is what
 * tells a good tree from a bad one).  Release with vv_dmv_close().
 */
int vv_dmv_open(const struct vv_dmv_options *o, const char *data_name,
		struct vv_dmv_image *img);
/* Close the files; false after an error line. */
bool vv_dmv_close(struct vv_dmv_image *img);

/*
 * After the data pass: the unused hash slots at the end of each level are
 * zero, as `veritysetup verify` checks (else a superblock that says fewer
 * data blocks would go unnoticed).  Returns VV_EXIT_OK, or after one error
 * line VV_EXIT_FAILURE (not zero) or VV_EXIT_USAGE (read error).
 */
int vv_dmv_check_spare(const struct vv_dmv_image *img, const char *data_name);

/*
 * Read and parse the superblock at offset in f (size bytes): params and
 * uuid.  Returns VV_EXIT_OK, or VV_EXIT_USAGE after one error line.
 */
int vv_dmv_read_sb(const struct vv_file *f, uint64_t size, uint64_t offset,
		   struct merkle_params *params, uint8_t uuid[16]);

/* ---- large tree writes (tree_writer.c) ---- */

/* One stream per tree level; the builder writes each level in order. */
#define VV_TREE_WRITE_STREAMS MERKLE_MAX_LEVELS
#define VV_TREE_WRITE_BYTES (1U << 20)

struct vv_write_stream {
	uint8_t *buf;		/* VV_TREE_WRITE_BYTES, allocated on use */
	uint64_t off;		/* tree offset of buf[0] */
	size_t len;
	uint64_t last_use;
};

/*
 * A merkle_write_fn (vv_tree_writer_write) that gathers the builder's
 * block-sized writes into large writes through another merkle_write_fn.
 * After a successful merkle_build_tree(), vv_tree_writer_flush() writes
 * what is still buffered.
 */
struct vv_tree_writer {
	merkle_write_fn write;
	void *write_ctx;
	pthread_mutex_t lock;
	uint64_t clock;
	struct vv_write_stream streams[VV_TREE_WRITE_STREAMS];
};

void vv_tree_writer_init(struct vv_tree_writer *w, merkle_write_fn write,
			 void *write_ctx);
int vv_tree_writer_write(void *ctx, const void *buf, size_t len,
			 uint64_t off);
int vv_tree_writer_flush(struct vv_tree_writer *w);
void vv_tree_writer_destroy(struct vv_tree_writer *w);

/* ---- verifying data blocks (verify_blocks.c) ---- */

/* Told of each data block that does not match the tree. */
typedef void (*vv_bad_block_fn)(void *ctx, uint64_t block);

/*
 * Verify nblocks data blocks from first_block, held in buf, against t
 * (merkle_verify_blocks() with ra_blocks of readahead), going on past
 * each bad block, which goes to bad(ctx, block).  Returns 0 when every
 * block was looked at (good or bad), or the error that stopped it.
 */
int vv_verify_blocks(struct merkle_tree *t, uint64_t first_block,
		     const uint8_t *buf, size_t nblocks, unsigned ra_blocks,
		     vv_bad_block_fn bad, void *ctx);

/*
 * One pass over all the data of a file against its tree, what `verify`
 * does for every format: the data is read from fd at offset 0 (the last
 * block zero-padded past params->data_size) and each block is checked
 * through the tree that read_tree reads (tree offsets, as
 * merkle_tree_open() takes them), trusting root_hash only.  Every bad
 * block is named on stderr (the first few unless verbose), then a line
 * saying when the tree's top block does not match root_hash, then a
 * summary; verbose also prints the tree's statistics.  When tree_region is
 * not NULL it is read_ctx, and its failures are named with its file and
 * offset.  Returns the exit status of verify: VV_EXIT_OK, VV_EXIT_FAILURE
 * (bad blocks) or VV_EXIT_USAGE (could not tell: I/O error, no memory).
 */
struct vv_verify_pass {
	const char *name;		/* the data file, in messages */
	int fd;
	const struct merkle_params *params;
	const uint8_t *root_hash;
	merkle_read_fn read_tree;
	void *read_ctx;
	const struct vv_region *tree_region;
	bool verbose;
	/* Set by vv_verify_data(). */
	uint64_t data_blocks;
	uint64_t bad_blocks;
};

int vv_verify_data(struct vv_verify_pass *v);

/* ---- f2fs images (cmd_f2fs.c, f2fs_check.c) ---- */

/* A file to list or check, found by walking the PATHs given. */
struct vv_f2fs_entry {
	char *path;		/* from the image's root, "/..." */
	uint32_t ino;
	bool named;		/* given by name on the command line */
};

struct f2fslayout_fs;

struct vv_f2fs_image {
	const char *name;	/* the image, as given */
	struct f2fslayout_fs *fs;
	struct vv_f2fs_entry *files;
	size_t nr_files;
	bool incomplete;	/* something could not be walked (reported) */
};

/*
 * Open file e of the image and, if it has fs-verity, its metadata
 * (release both); errors go to out.  Returns 1 when *f and *img are filled, 0 for a file
 * without fs-verity found by walking (nothing to release), and -1 after
 * naming, with one line, a file that could not be read: a verity file, a
 * file given by name, or a damaged one whose kind is unknown.
 */
struct f2fslayout_file;
struct f2fslayout_image;
int vv_f2fs_open_verity(FILE *out, const struct vv_f2fs_image *im,
			const struct vv_f2fs_entry *e, struct f2fslayout_file *f,
			struct f2fslayout_image *img);

/*
 * `f2fs check`: verify every verity file among im->files with threads
 * threads (0: one per CPU).  Returns the exit status: VV_EXIT_OK when
 * all held, VV_EXIT_FAILURE when a file failed or could not be checked.
 */
int vv_f2fs_check(const struct vv_f2fs_image *im, unsigned threads,
		  bool verbose);

/*
 * One line to out (stderr, or a report kept for later) about file path
 * of the image: "vublk-verity f2fs: IMAGE:PATH: what".
 */
void vv_f2fs_file_error(FILE *out, const struct vv_f2fs_image *im,
			const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), nonnull(4)));

/*
 * Open the image name (a file or block device) with open(2) flags
 * (O_RDONLY, or O_RDWR to rewrite its metadata) and read and fully
 * validate its vublk metadata (f2fslayout_read()); release img with
 * f2fslayout_image_release() and close f.  Returns VV_EXIT_OK, or after
 * one error line VV_EXIT_FAILURE when the metadata is missing or invalid
 * and VV_EXIT_USAGE when the image can't be read at all (the exit status
 * of verify: 1 means "the image does not verify", 2 "can't tell").
 */
struct f2fslayout_image;
int vv_open_image(const char *name, int flags, struct vv_file *f,
		  struct f2fslayout_image *img);

#endif /* VUBLK_VERITY_H */
