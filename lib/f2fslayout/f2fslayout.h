/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * f2fslayout.h - where a vublk image keeps its fs-verity metadata.
 *
 * This is the one public header of lib/f2fslayout.  The layout mirrors how
 * f2fs stores a verity file's metadata past the end of the file
 * (fs/f2fs/verity.c), applied to a block device image:
 *
 *   [0, data_size)               the block device's data ("i_size")
 *   [data_size, tree_pos)        zeroes (a hole), tree_pos =
 *                                round_up(data_size, 64 KiB), as
 *                                f2fs_verity_metadata_pos()
 *   [tree_pos, +tree_size)       the Merkle tree, top level first
 *                                (f2fs_write_merkle_tree_block())
 *   [desc_pos, +desc_size)       descriptor (+ signature), desc_pos =
 *                                tree_pos + tree_size, as
 *                                f2fs_end_enable_verity()
 *   [desc_end, trailer_pos)      zeroes
 *   [trailer_pos, image_size)    the 64-byte trailer; image_size is a
 *                                multiple of 4096
 *
 * An image has no xattrs, so the 16-byte location record that f2fs keeps in
 * its "v" xattr (struct fsverity_descriptor_location) lives in the trailer,
 * the last 64 bytes of the image file.  docs/FORMAT.md describes every byte.
 *
 * The second part of this header reads real f2fs images, to find and
 * check the verity files inside them ("Real f2fs images" below).
 *
 * Errors: functions that can fail return 0 (or a documented non-negative
 * value) on success, or a negative value: -errno, one of the F2FSLAYOUT_E_*
 * codes below, or a MERKLE_E_* code from lib/merkle (descriptor
 * validation).  f2fslayout_strerror() names all three.
 *
 * Thread safety: everything is plain data or stateless (for the f2fs part,
 * see there).
 */
#ifndef VUBLK_F2FSLAYOUT_H
#define VUBLK_F2FSLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merkle.h"

/* The tree starts at the first 64 KiB boundary at or after data_size. */
#define F2FSLAYOUT_METADATA_ALIGN 65536
/* The image size is a multiple of this; the trailer ends the image. */
#define F2FSLAYOUT_IMAGE_ALIGN 4096
#define F2FSLAYOUT_TRAILER_SIZE 64
#define F2FSLAYOUT_TRAILER_VERSION 1
/* f2fs's F2FS_VERIFY_VER: the version of the location record. */
#define F2FSLAYOUT_LOCATION_VERSION 1
#define F2FSLAYOUT_MAGIC "vublkVT"	/* 8 bytes with the NUL */

/* Library-specific errors (negative, below lib/merkle's and any errno). */
enum f2fslayout_error {
	F2FSLAYOUT_E_IMAGE_TOO_SMALL = -2000, /* smaller than a trailer */
	F2FSLAYOUT_E_NO_TRAILER,	/* magic not at the end of the image */
	F2FSLAYOUT_E_TRAILER_MISSING,	/* no trailer, but a descriptor where
					 * a sealed image keeps it */
	F2FSLAYOUT_E_TRAILER_VERSION,	/* trailer version is not 1 */
	F2FSLAYOUT_E_TRAILER_SIZE,	/* trailer size field is not 64 */
	F2FSLAYOUT_E_TRAILER_CHECKSUM,	/* trailer checksum mismatch */
	F2FSLAYOUT_E_TRAILER_RESERVED,	/* trailer reserved bytes not zero */
	F2FSLAYOUT_E_LOCATION_VERSION,	/* location record version not 1 */
	F2FSLAYOUT_E_DESC_TOO_SMALL,	/* descriptor size < 256 */
	F2FSLAYOUT_E_DESC_TOO_LARGE,	/* descriptor size > 16384 */
	F2FSLAYOUT_E_DESC_POS_OVERFLOW,	/* desc pos + size wraps 64 bits */
	F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE, /* metadata area past the image */
	F2FSLAYOUT_E_DESC_BEFORE_METADATA, /* desc pos < round_up(data, 64K) */
	F2FSLAYOUT_E_DESC_PAST_EOF,	/* descriptor past the end of image */
	F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER, /* descriptor runs into trailer */
	F2FSLAYOUT_E_DATA_SIZE_MISMATCH, /* descriptor vs trailer data_size */
	F2FSLAYOUT_E_TREE_OVERLAPS_DESC, /* tree too big for its region */
	F2FSLAYOUT_E_TRUNCATED,		/* image shrank while being read */
	F2FSLAYOUT_E_BAD_FILE_TYPE,	/* neither regular file nor blkdev */
	F2FSLAYOUT_E_NOT_REGULAR,	/* writing needs a regular file */
	F2FSLAYOUT_E_IMAGE_TOO_LARGE,	/* planned image exceeds off_t */
	F2FSLAYOUT_E_TREE_RANGE,	/* tree I/O outside the tree */
	/* Real f2fs images (f2fslayout_fs_*, f2fslayout_file_*): */
	F2FSLAYOUT_E_F2FS_NO_SUPER,	/* no superblock copy has the magic */
	F2FSLAYOUT_E_F2FS_SUPER_CHECKSUM, /* superblock checksum mismatch */
	F2FSLAYOUT_E_F2FS_SUPER_INVALID, /* superblock field out of range */
	F2FSLAYOUT_E_F2FS_FEATURE,	/* a filesystem feature not understood */
	F2FSLAYOUT_E_F2FS_IMAGE_SHORT,	/* image smaller than the filesystem */
	F2FSLAYOUT_E_F2FS_NO_CHECKPOINT, /* neither checkpoint pack is valid */
	F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID, /* checkpoint field out of range */
	F2FSLAYOUT_E_F2FS_NID_RANGE,	/* node id outside the NAT */
	F2FSLAYOUT_E_F2FS_NAT_ENTRY,	/* NAT entry: no block, bad block, ino */
	F2FSLAYOUT_E_F2FS_NODE_FOOTER,	/* node block footer does not match */
	F2FSLAYOUT_E_F2FS_INODE_INVALID, /* inode field out of range */
	F2FSLAYOUT_E_F2FS_BLOCK_ADDR,	/* data block outside the main area */
	F2FSLAYOUT_E_F2FS_TOO_FRAGMENTED, /* more extents than blocks */
	F2FSLAYOUT_E_F2FS_FILE_TOO_LARGE, /* past the largest f2fs file */
	F2FSLAYOUT_E_F2FS_XATTR_INVALID, /* xattr entries run past their area */
	F2FSLAYOUT_E_F2FS_DIR_INVALID,	/* dentry or directory depth corrupt */
	F2FSLAYOUT_E_F2FS_ENCRYPTED,	/* encrypted file or directory */
	F2FSLAYOUT_E_F2FS_COMPRESSED,	/* compressed file */
	F2FSLAYOUT_E_F2FS_NOT_REGULAR,	/* not a regular file */
	F2FSLAYOUT_E_F2FS_NOT_VERITY,	/* regular file without fs-verity */
	F2FSLAYOUT_E_F2FS_INLINE_VERITY, /* verity flag on inline data */
	F2FSLAYOUT_E_F2FS_NO_VERITY_XATTR, /* verity flag but no "v" xattr */
	F2FSLAYOUT_E_F2FS_VERITY_XATTR,	/* "v" xattr of unknown format */
	F2FSLAYOUT_E_F2FS_VERITY_LOCATION, /* descriptor location invalid */
	F2FSLAYOUT_E_F2FS_VERITY_DATA_SIZE, /* descriptor data size != i_size */
	F2FSLAYOUT_E_F2FS_VERITY_TREE,	/* tree runs into the descriptor */
	F2FSLAYOUT_E_F2FS_RANGE,	/* file read outside the mapped blocks */
};

/*
 * Human-readable, one-line text for a negative return value of this
 * library (including lib/merkle's codes and -errno).
 */
const char *f2fslayout_strerror(int err);

/* The kinds of failure, for reporting. */
enum f2fslayout_error_kind {
	F2FSLAYOUT_ERR_NONE,		/* not a failure */
	F2FSLAYOUT_ERR_NOT_SEALED,	/* no vublk metadata at all */
	F2FSLAYOUT_ERR_DAMAGE,		/* metadata present but invalid */
	F2FSLAYOUT_ERR_UNSUPPORTED,	/* valid, but not understood here */
	F2FSLAYOUT_ERR_ARGUMENT,	/* the caller's file or sizes won't do */
	F2FSLAYOUT_ERR_IO,		/* -errno, or the image changed meanwhile */
	F2FSLAYOUT_ERR_NOMEM,		/* out of memory */
};

/*
 * The kind of a return value of this library (lib/merkle's codes
 * included, through merkle_error_kind()); every caller classes failures
 * with this, never by comparing codes.
 */
enum f2fslayout_error_kind f2fslayout_error_kind(int err);

/* Where everything is, in bytes from the start of the image file. */
struct f2fslayout_layout {
	uint64_t data_size;	/* bytes of block device data */
	uint64_t tree_pos;	/* round_up(data_size, 64 KiB) */
	uint64_t tree_size;	/* from merkle_geometry.tree_size */
	uint64_t desc_pos;
	uint32_t desc_size;	/* descriptor + signature */
	uint64_t trailer_pos;	/* image_size - F2FSLAYOUT_TRAILER_SIZE */
	uint64_t image_size;	/* size of the whole image file */
};

/*
 * round_up(data_size, 64 KiB), f2fs_verity_metadata_pos().  Fails with
 * F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE if that does not fit in 64 bits.
 */
int f2fslayout_metadata_pos(uint64_t data_size, uint64_t *pos);

/*
 * Plan the layout of a new image: where the tree, descriptor and trailer
 * go for data_size bytes of data, a tree of tree_size bytes and a
 * descriptor (+ signature) of desc_size bytes (256..16384).
 */
int f2fslayout_plan(uint64_t data_size, uint64_t tree_size,
		    uint32_t desc_size, struct f2fslayout_layout *l);

/*
 * The trailer, decoded.  Byte format (all little endian), see FORMAT.md:
 *   0  magic[8]     "vublkVT\0"
 *   8  version      le32, 1
 *  12  size         le32, 64
 *  16  data_size    le64, the "i_size" the descriptor must match
 *  24  loc.version  le32, 1     \  f2fs's struct
 *  28  loc.size     le32        |  fsverity_descriptor_location,
 *  32  loc.pos      le64        /  verbatim (16 bytes)
 *  40  reserved[20] zero
 *  60  checksum     le32, CRC-32C (Castagnoli) of bytes 0..59
 * The checksum detects accidental damage only; authenticity comes from
 * the root hash or file digest that the user trusts.
 */
struct f2fslayout_trailer {
	uint32_t version;
	uint32_t size;
	uint64_t data_size;
	uint32_t loc_version;	/* struct fsverity_descriptor_location */
	uint32_t loc_size;
	uint64_t loc_pos;
};

/*
 * Encode *t into buf (magic, fields, zero reserved bytes) and seal it with
 * its checksum.  Encodes any values, valid or not (tests and fuzzers rely
 * on that).
 */
void f2fslayout_trailer_encode(const struct f2fslayout_trailer *t,
			       uint8_t buf[F2FSLAYOUT_TRAILER_SIZE]);

/* Recompute and store the checksum of buf (bytes 60..63). */
void f2fslayout_trailer_seal(uint8_t buf[F2FSLAYOUT_TRAILER_SIZE]);

/*
 * Pure validation of the last F2FSLAYOUT_TRAILER_SIZE bytes of an image of
 * image_size bytes, as f2fs_get_verity_descriptor() validates its xattr:
 * magic, trailer version, size, checksum and reserved bytes, location
 * version, descriptor size (256..16384), pos + size overflow,
 * pos >= round_up(data_size, 64 KiB), descriptor inside the image and
 * before the trailer.  On success fills *l except tree_size (0; it needs
 * the descriptor, see f2fslayout_check_descriptor()).
 */
int f2fslayout_trailer_validate(const uint8_t buf[F2FSLAYOUT_TRAILER_SIZE],
				uint64_t image_size,
				struct f2fslayout_layout *l);

/* What an image's verity metadata says, after full validation. */
struct f2fslayout_image {
	struct f2fslayout_layout layout;
	struct merkle_params params;
	struct merkle_geometry geometry;
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint32_t sig_size;
	uint8_t *desc;		/* layout.desc_size bytes; malloc'd */
};

/*
 * Pure validation of the descriptor bytes (layout.desc_size of them) found
 * at a layout that f2fslayout_trailer_validate() accepted: the checks of
 * fs/verity/open.c (merkle_descriptor_parse()), descriptor data_size equal
 * to the trailer's (the kernel's "Wrong data_size" check against i_size),
 * and a tree region [tree_pos, desc_pos) large enough for the geometry.
 * Fills everything in *img but img->desc, and sets img->layout.tree_size.
 */
int f2fslayout_check_descriptor(const struct f2fslayout_layout *l,
				const void *desc, struct f2fslayout_image *img);

/*
 * Read and fully validate the metadata of the image open on fd (a regular
 * file or a block device).  On success img->desc is malloc'd; release it
 * with f2fslayout_image_release().  On F2FSLAYOUT_E_TRAILER_MISSING (a
 * sealed image that lost its trailer), img->layout.desc_pos and
 * .data_size say where the descriptor left is and the data size it
 * gives; nothing is allocated.
 */
int f2fslayout_read(int fd, struct f2fslayout_image *img);
void f2fslayout_image_release(struct f2fslayout_image *img);

/*
 * The same for an image of image_size bytes that is not a file
 * descriptor (the daemon's backends: a mapping, an NBD export): read_fn()
 * fills buf with len bytes at image offset off and returns 0 or a
 * negative error, like f2fslayout_tree_read().
 */
typedef int (*f2fslayout_read_fn)(void *ctx, void *buf, size_t len,
				  uint64_t off);
int f2fslayout_read_from(f2fslayout_read_fn read_fn, void *ctx,
			 uint64_t image_size, struct f2fslayout_image *img);

/*
 * Does the image end with a vublk trailer magic, or is it a sealed image
 * that lost its trailer (cut short, or the magic damaged) but still has
 * its descriptor where the layout puts it?  Returns 1 if so (valid or
 * damaged: either way the end of the file is not plain data, and
 * f2fslayout_read() says which), 0 if not (or the file is smaller than a
 * trailer), or a negative error (-errno, F2FSLAYOUT_E_TRUNCATED).
 */
int f2fslayout_probe(int fd);

/*
 * Start a new image on fd, a regular file holding l->data_size bytes of
 * data (and possibly old metadata or other bytes after them): cut the file
 * to l->data_size, then extend it to l->tree_pos so that the gap before
 * the tree is a zero hole.  Everything past data_size is discarded, like
 * the blocks past i_size that f2fs truncates when enabling fails.  Then
 * write the tree (f2fslayout_tree_write()), then call
 * f2fslayout_write_metadata().
 */
int f2fslayout_prepare(int fd, const struct f2fslayout_layout *l);

/*
 * Undo f2fslayout_prepare() when the image cannot be finished: cut the
 * file back to l->data_size, dropping the tree and anything written past
 * the data, as f2fs_end_enable_verity() truncates a file whose enabling
 * failed.  The file is then what it was before a first format (a file
 * formatted again with --force loses its old metadata, as prepare had
 * already cut it).  Only ftruncate(), so that a signal handler may call
 * it.  Returns 0 or -errno.
 */
int f2fslayout_undo_prepare(int fd, const struct f2fslayout_layout *l);

/*
 * Finish a new image on fd, a regular file whose tree is already written
 * at l->tree_pos: check that the trailer for l and desc (l->desc_size
 * bytes) pass the same validation as f2fslayout_read() (so that nothing
 * unreadable is ever written), write the descriptor at l->desc_pos, cut
 * the file after it and extend it to l->image_size (zero padding), flush,
 * and only then write and flush the trailer.  The order mirrors
 * f2fs_end_enable_verity(), which writes back the tree and descriptor
 * before setting the xattr that points at them: a crash never leaves a
 * valid trailer over missing metadata.
 */
int f2fslayout_write_metadata(int fd, const struct f2fslayout_layout *l,
			      const void *desc);

/*
 * Give the sealed image on fd, whose metadata f2fslayout_read() returned
 * as img, the builtin signature sig (sig_size bytes; 0 removes it): the
 * descriptor's sig_size is set, the signature follows the descriptor,
 * and the trailer's location record covers both, as f2fs stores the
 * signature given to FS_IOC_ENABLE_VERITY.  The data, the tree and the
 * file digest are unchanged.  Written by f2fslayout_write_metadata()
 * (regular files only), so the same checks and order apply, and a crash
 * before the new trailer is written leaves an image that every reader
 * refuses (no trailer, or one whose size disagrees with sig_size), as
 * a crash during format does.
 * F2FSLAYOUT_E_DESC_TOO_LARGE when sig_size is over 16128 (the kernel's
 * FS_VERITY_MAX_SIGNATURE_SIZE).
 */
int f2fslayout_write_signature(int fd, const struct f2fslayout_image *img,
			       const void *sig, uint32_t sig_size);

/*
 * Tree I/O in tree offsets (0 = first byte of the top level), for
 * merkle_build_tree() (write) and merkle_tree_open() (read): ctx is a
 * struct f2fslayout_tree_io.  Ranges outside [0, tree_size) fail with
 * F2FSLAYOUT_E_TREE_RANGE; short transfers are retried; an unexpected end
 * of file is F2FSLAYOUT_E_TRUNCATED.
 */
struct f2fslayout_tree_io {
	int fd;
	uint64_t tree_pos;
	uint64_t tree_size;
};

int f2fslayout_tree_read(void *ctx, void *buf, size_t len, uint64_t off);
int f2fslayout_tree_write(void *ctx, const void *buf, size_t len,
			  uint64_t off);

/*
 * ---- Real f2fs images ----
 *
 * Read-only parsing of an f2fs filesystem image as mkfs.f2fs and the
 * kernel's fs/f2fs write it, to find the fs-verity files inside it and
 * everything needed to check them offline: no mount, no kernel f2fs.
 * Source of truth for every structure: include/linux/f2fs_fs.h and
 * fs/f2fs/ (super.c, checkpoint.c, node.c, inode.c, xattr.c, dir.c,
 * hash.c, inline.c, verity.c); docs/FORMAT.md, "Real f2fs images".
 *
 * What is read, in the kernel's order: the superblock (the first of its
 * two copies that is valid, checksum included when the sb_checksum
 * feature is on), the newer valid checkpoint pack, its NAT journal, then
 * on demand NAT entries, node blocks, inodes with their inline xattrs and
 * xattr node, direct and indirect node trees, inline data and inline
 * dentries, and directories by their hashed dentry blocks.  What is read
 * is the state of the last checkpoint: fsynced writes after it that the
 * kernel would roll forward at mount are not seen (info.clean says
 * whether the filesystem was unmounted cleanly).
 *
 * Every on-disk number is bounds-checked before it is used; an image this
 * code does not understand (another block size, several devices, an
 * unknown feature bit) is refused at open, and a file it does not
 * understand (encrypted, compressed) fails with its own error code while
 * the rest of the image stays readable.  Nothing is ever guessed.
 *
 * Thread safety: after f2fslayout_fs_open() returns, a struct
 * f2fslayout_fs is only read (pread() on its fd), so any number of
 * threads may look up, walk, open and read files at once.  A struct
 * f2fslayout_file is plain data.
 */

/* f2fs block size: the only one the kernel supports on 4 KiB pages. */
#define F2FSLAYOUT_F2FS_BLOCK_SIZE 4096
/* image_off of an extent that reads as zeroes (a hole, or NEW_ADDR). */
#define F2FSLAYOUT_HOLE UINT64_MAX
/* The longest name in a directory (F2FS_NAME_LEN). */
#define F2FSLAYOUT_F2FS_NAME_LEN 255

/* Directory entry types: the kernel's F2FS_FT_* (include/linux/f2fs_fs.h). */
enum f2fslayout_file_type {
	F2FSLAYOUT_FT_UNKNOWN,
	F2FSLAYOUT_FT_REG_FILE,
	F2FSLAYOUT_FT_DIR,
	F2FSLAYOUT_FT_CHRDEV,
	F2FSLAYOUT_FT_BLKDEV,
	F2FSLAYOUT_FT_FIFO,
	F2FSLAYOUT_FT_SOCK,
	F2FSLAYOUT_FT_SYMLINK,
};

struct f2fslayout_fs;

/* What f2fslayout_fs_open() found. */
struct f2fslayout_fs_info {
	unsigned super_copy;		/* 0 or 1: the superblock copy used */
	bool other_super_valid;		/* the other copy is valid too */
	uint32_t features;		/* superblock feature bits */
	uint64_t block_count;		/* 4 KiB blocks in the filesystem */
	unsigned checkpoint_pack;	/* 1 or 2 */
	uint64_t checkpoint_version;
	bool clean;			/* CP_UMOUNT_FLAG: unmounted cleanly */
	uint32_t root_ino;
};

/*
 * Open the f2fs image on fd (a regular file or a block device, read-only
 * is enough).  fd stays the caller's: keep it open while *fs is used and
 * close it after f2fslayout_fs_close().
 */
int f2fslayout_fs_open(int fd, struct f2fslayout_fs **fs);
/*
 * The same for an f2fs image of image_size bytes read through read_fn
 * (see f2fslayout_read_from(): the daemon's backends, an NBD export).
 * ctx stays the caller's while *fs is used.
 */
int f2fslayout_fs_open_from(f2fslayout_read_fn read_fn, void *ctx,
			    uint64_t image_size, struct f2fslayout_fs **fs);
void f2fslayout_fs_close(struct f2fslayout_fs *fs);
void f2fslayout_fs_get_info(const struct f2fslayout_fs *fs,
			    struct f2fslayout_fs_info *info);

/*
 * Resolve path, from the root directory, to an inode number.  '/'
 * separates names; leading, doubled and trailing '/' are ignored ("" and
 * "/" are the root); "." and ".." are looked up as the entries they are.
 * Each directory is searched the way f2fs_find_entry() does: its inline
 * dentries, or its hash levels (fs/f2fs/hash.c: the TEA hash of the name
 * picks one bucket per level).  In a casefolded directory every bucket is
 * searched (the kernel's fallback when the hash misses) and names match
 * byte for byte, not case-insensitively.  Errors: -ENOENT, -ENOTDIR,
 * -ENAMETOOLONG, F2FSLAYOUT_E_F2FS_ENCRYPTED (names in an encrypted
 * directory are ciphertext), or corruption codes.
 */
int f2fslayout_fs_lookup(struct f2fslayout_fs *fs, const char *path,
			 uint32_t *ino);

/*
 * One entry seen by f2fslayout_fs_walk().  path is "/"-separated from the
 * root, starting with '/'; valid during the callback only.  err is 0, or
 * why the directory at path could not be walked (it was reported and
 * skipped; the walk goes on).
 */
struct f2fslayout_dirent {
	const char *path;
	uint32_t ino;
	enum f2fslayout_file_type type;	/* from the directory entry */
	int err;
};

/* Return 0 to go on, anything else to stop the walk with that value. */
typedef int (*f2fslayout_walk_fn)(void *ctx,
				  const struct f2fslayout_dirent *e);

/*
 * Call fn for path itself and, if it is a directory, for everything below
 * it, depth first, each directory's entries in on-disk order ("." and ".."
 * left out).  Each directory inode is walked once even if a corrupt image
 * links it twice.  Returns 0, fn's non-zero value, or an error for path
 * itself (as f2fslayout_fs_lookup()).
 */
int f2fslayout_fs_walk(struct f2fslayout_fs *fs, const char *path,
		       f2fslayout_walk_fn fn, void *ctx);

/*
 * A run of file bytes [file_off, file_off + len) stored at image bytes
 * [image_off, image_off + len), or reading as zeroes when image_off is
 * F2FSLAYOUT_HOLE (no block, or a block reserved but never written:
 * NULL_ADDR and NEW_ADDR, which the kernel's read path zero-fills).
 */
struct f2fslayout_extent {
	uint64_t file_off;
	uint64_t len;
	uint64_t image_off;
};

/* struct f2fslayout_file flags, from the inode. */
#define F2FSLAYOUT_FILE_VERITY		(1u << 0)	/* FADVISE_VERITY_BIT */
#define F2FSLAYOUT_FILE_INLINE_DATA	(1u << 1)	/* F2FS_INLINE_DATA */

/*
 * A regular file, mapped.  The extents are sorted, contiguous and cover
 * [0, mapped_size) exactly: every byte of the file there has one image
 * offset (or is a hole).  mapped_size is size rounded up to the block
 * size, and for a verity file it reaches past size to the end of the
 * block holding the last byte of the descriptor, so that the Merkle tree
 * and descriptor that f2fs keeps past EOF (fs/f2fs/verity.c) are mapped
 * too.  An inline file (data inside its inode) has one extent of size
 * bytes, at an image offset that is not block-aligned.
 */
struct f2fslayout_file {
	uint32_t ino;
	uint32_t mode;			/* i_mode */
	uint64_t size;			/* i_size */
	unsigned flags;			/* F2FSLAYOUT_FILE_* */
	uint64_t mapped_size;
	size_t nr_extents;
	struct f2fslayout_extent *extents;	/* malloc'd */
};

/*
 * Read inode ino and map its blocks.  Only regular files:
 * F2FSLAYOUT_E_F2FS_NOT_REGULAR otherwise; F2FSLAYOUT_E_F2FS_ENCRYPTED or
 * _COMPRESSED for files whose blocks do not hold their plain bytes.  On
 * success release *f with f2fslayout_file_release().  On failure nothing
 * needs releasing and *f has no extents, but ino, mode, size and flags
 * are set when the inode was read (so that the caller can tell whether
 * the file it skips has fs-verity).
 */
int f2fslayout_file_open(struct f2fslayout_fs *fs, uint32_t ino,
			 struct f2fslayout_file *f);
void f2fslayout_file_release(struct f2fslayout_file *f);

/*
 * The index of the extent holding file byte off (binary search), or
 * f->nr_extents when off >= f->mapped_size.
 */
size_t f2fslayout_file_find_extent(const struct f2fslayout_file *f,
				   uint64_t off);

/*
 * Read len bytes of the file at off through its extents (holes read as
 * zeroes).  The range must lie within [0, f->mapped_size), else
 * F2FSLAYOUT_E_F2FS_RANGE.  Thread-safe (pread()).
 */
int f2fslayout_file_pread(const struct f2fslayout_fs *fs,
			  const struct f2fslayout_file *f, void *buf,
			  size_t len, uint64_t off);

/*
 * The fs-verity metadata of a verity file, as fs/verity/open.c gets it
 * through f2fs_get_verity_descriptor(): the location from the file's
 * F2FS_XATTR_INDEX_VERITY (11) "v" xattr (struct
 * fsverity_descriptor_location: version 1, size, pos), checked as
 * fs/f2fs/verity.c checks it (no wrap, pos at or after
 * round_up(i_size, 64 KiB), within the largest f2fs file), the
 * descriptor read from the file's blocks at pos and validated by
 * f2fslayout_check_descriptor() (fs/verity/open.c's checks, data size
 * equal to i_size, the tree before the descriptor).
 *
 * On success *img holds, in FILE offsets (not image offsets):
 * layout.data_size = i_size, layout.tree_pos = round_up(i_size, 64 KiB),
 * layout.tree_size, layout.desc_pos and desc_size from the xattr;
 * layout.trailer_pos = layout.image_size = f->mapped_size (f2fs has no
 * trailer); params, geometry, root_hash, sig_size and desc (malloc'd:
 * release with f2fslayout_image_release()).  Map any of those file
 * offsets to the image with the extents of f.  The fs-verity file digest
 * (what `fsverity measure` prints) is merkle_descriptor_digest() of desc.
 */
int f2fslayout_file_verity(struct f2fslayout_fs *fs,
			   const struct f2fslayout_file *f,
			   struct f2fslayout_image *img);

/*
 * Tree reads for merkle_tree_open(): ctx is a struct
 * f2fslayout_file_tree_io; off is a tree offset (0 = the first byte of
 * the top level, at file offset tree_pos).  Outside [0, tree_size):
 * F2FSLAYOUT_E_TREE_RANGE.
 */
struct f2fslayout_file_tree_io {
	const struct f2fslayout_fs *fs;
	const struct f2fslayout_file *file;
	uint64_t tree_pos;		/* file offset of the tree */
	uint64_t tree_size;
};

int f2fslayout_file_tree_read(void *ctx, void *buf, size_t len,
			      uint64_t off);

#endif /* VUBLK_F2FSLAYOUT_H */
