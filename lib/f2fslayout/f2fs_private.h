/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * f2fs_private.h - what the files of lib/f2fslayout that read real f2fs
 * images share: the on-disk offsets and constants of
 * include/linux/f2fs_fs.h and the headers of fs/f2fs, the open filesystem, and the
 * internal steps (node lookup, inode parsing, block mapping, xattrs,
 * dentries).  Not part of the contract; other code uses f2fslayout.h.
 *
 * Structures are read as byte arrays at these offsets with get_le*(),
 * never cast, so that no packed-struct alignment or host byte order is
 * involved; the offsets were checked against the kernel's __packed
 * structs (sizes 3072, 192, 4096, ...).
 */
#ifndef VUBLK_F2FS_PRIVATE_H
#define VUBLK_F2FS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "f2fslayout_private.h"

#define F2FS_BLKSIZE F2FSLAYOUT_F2FS_BLOCK_SIZE
#define F2FS_BLKSIZE_BITS 12
#define F2FS_SUPER_MAGIC 0xF2F52010u
#define F2FS_SUPER_OFFSET 1024		/* in each of blocks 0 and 1 */
#define F2FS_SUPER_SIZE 3072

/* struct f2fs_super_block */
#define SB_MAGIC 0
#define SB_LOG_SECTORSIZE 8
#define SB_LOG_SECTORS_PER_BLOCK 12
#define SB_LOG_BLOCKSIZE 16
#define SB_LOG_BLOCKS_PER_SEG 20
#define SB_SEGS_PER_SEC 24
#define SB_SECS_PER_ZONE 28
#define SB_CHECKSUM_OFFSET 32
#define SB_BLOCK_COUNT 36		/* le64 */
#define SB_SECTION_COUNT 44
#define SB_SEGMENT_COUNT 48
#define SB_SEGMENT_COUNT_CKPT 52
#define SB_SEGMENT_COUNT_SIT 56
#define SB_SEGMENT_COUNT_NAT 60
#define SB_SEGMENT_COUNT_SSA 64
#define SB_SEGMENT_COUNT_MAIN 68
#define SB_SEGMENT0_BLKADDR 72
#define SB_CP_BLKADDR 76
#define SB_SIT_BLKADDR 80
#define SB_NAT_BLKADDR 84
#define SB_SSA_BLKADDR 88
#define SB_MAIN_BLKADDR 92
#define SB_ROOT_INO 96
#define SB_CP_PAYLOAD 1664
#define SB_FEATURE 2180
#define SB_DEVS 2201			/* struct f2fs_device[8]: path[64] first */
#define SB_CRC 3068

#define F2FS_MIN_LOG_SECTOR_SIZE 9
#define F2FS_MAX_LOG_SECTOR_SIZE 12
#define F2FS_LOG_BLOCKS_PER_SEG 9	/* sanity_check_raw_super(): 512 */
#define F2FS_MAX_SEGMENT (16u * 1024 * 1024 / 2)
#define F2FS_CP_PACKS 2
#define NR_CURSEG_DATA_TYPE 3
#define NR_CURSEG_PERSIST_TYPE 6

/* Superblock feature bits (fs/f2fs/f2fs.h F2FS_FEATURE_*). */
#define F2FS_FEATURE_ENCRYPT 0x0001
#define F2FS_FEATURE_BLKZONED 0x0002
#define F2FS_FEATURE_ATOMIC_WRITE 0x0004
#define F2FS_FEATURE_EXTRA_ATTR 0x0008
#define F2FS_FEATURE_PRJQUOTA 0x0010
#define F2FS_FEATURE_INODE_CHKSUM 0x0020
#define F2FS_FEATURE_FLEXIBLE_INLINE_XATTR 0x0040
#define F2FS_FEATURE_QUOTA_INO 0x0080
#define F2FS_FEATURE_INODE_CRTIME 0x0100
#define F2FS_FEATURE_LOST_FOUND 0x0200
#define F2FS_FEATURE_VERITY 0x0400
#define F2FS_FEATURE_SB_CHKSUM 0x0800
#define F2FS_FEATURE_CASEFOLD 0x1000
#define F2FS_FEATURE_COMPRESSION 0x2000

/* struct f2fs_checkpoint */
#define CP_VERSION 0			/* le64 */
#define CP_FLAGS 132
#define CP_PACK_TOTAL_BLOCK_COUNT 136
#define CP_PACK_START_SUM 140
#define CP_SIT_VER_BITMAP_BYTESIZE 156
#define CP_NAT_VER_BITMAP_BYTESIZE 160
#define CP_CHECKSUM_OFFSET 164
#define CP_SIT_NAT_VERSION_BITMAP 192	/* CP_MIN_CHKSUM_OFFSET */
#define CP_CHKSUM_OFFSET (F2FS_BLKSIZE - 4)

#define CP_LARGE_NAT_BITMAP_FLAG 0x0400
#define CP_FASTBOOT_FLAG 0x0020
#define CP_COMPACT_SUM_FLAG 0x0004
#define CP_UMOUNT_FLAG 0x0001

/* struct f2fs_summary_block and struct f2fs_journal (NAT journal). */
#define SUM_ENTRY_SIZE (7 * 512)	/* the journal follows the entries */
#define SUM_JOURNAL_SIZE (F2FS_BLKSIZE - 5 - SUM_ENTRY_SIZE)
#define NAT_JOURNAL_ENTRY_SIZE 13	/* le32 nid + struct f2fs_nat_entry */
#define NAT_JOURNAL_ENTRIES ((SUM_JOURNAL_SIZE - 2) / NAT_JOURNAL_ENTRY_SIZE)

/* struct f2fs_nat_entry: u8 version, le32 ino, le32 block_addr */
#define NAT_ENTRY_SIZE 9
#define NAT_ENTRY_INO 1
#define NAT_ENTRY_BLOCK_ADDR 5
#define NAT_ENTRY_PER_BLOCK (F2FS_BLKSIZE / NAT_ENTRY_SIZE)

/* Block addresses with a meaning of their own (and COMPRESS_ADDR,
 * 0xFFFFFFFE, only in compressed files, which are not mapped). */
#define NULL_ADDR 0u
#define NEW_ADDR 0xFFFFFFFFu

/* 0, 1 (node inode) and 2 (meta inode) are not files. */
#define F2FS_RESERVED_NODE_NUM 3

/* struct f2fs_inode */
#define I_MODE 0			/* le16 */
#define I_ADVISE 2
#define I_INLINE 3
#define I_SIZE 16			/* le64 */
#define I_BLOCKS 24			/* le64 */
#define I_CURRENT_DEPTH 72
#define I_XATTR_NID 76
#define I_FLAGS 80
#define I_DIR_LEVEL 347
#define I_ADDR 360			/* le32 i_addr[923] */
#define I_EXTRA_ISIZE I_ADDR		/* le16, with F2FS_EXTRA_ATTR */
#define I_INLINE_XATTR_SIZE (I_ADDR + 2)	/* le16, in 4-byte words */
#define I_NID 4052			/* le32 i_nid[5] */
#define F2FS_TOTAL_EXTRA_ATTR_SIZE 36
#define DEF_ADDRS_PER_INODE 923
#define DEF_NIDS_PER_INODE 5
#define DEFAULT_INLINE_XATTR_ADDRS 50
#define DEF_INLINE_RESERVED_SIZE 1	/* words before inline data */
#define MIN_INLINE_DENTRY_SIZE 40
/* xattr.h MAX_INLINE_XATTR_SIZE, in words: 923 - 9 - 1 - 10 */
#define MAX_INLINE_XATTR_ADDRS (DEF_ADDRS_PER_INODE -			\
				F2FS_TOTAL_EXTRA_ATTR_SIZE / 4 -	\
				DEF_INLINE_RESERVED_SIZE -		\
				MIN_INLINE_DENTRY_SIZE / 4)

/* i_inline */
#define F2FS_INLINE_XATTR 0x01
#define F2FS_INLINE_DATA 0x02
#define F2FS_INLINE_DENTRY 0x04
#define F2FS_EXTRA_ATTR 0x20

/* i_advise */
#define FADVISE_ENCRYPT_BIT 0x04
#define FADVISE_VERITY_BIT 0x40

/* i_flags */
#define F2FS_COMPR_FL 0x00000004u
#define F2FS_CASEFOLD_FL 0x40000000u

/* struct node_footer, at the end of every node block */
#define NODE_FOOTER 4072
#define NODE_FOOTER_NID (NODE_FOOTER + 0)
#define NODE_FOOTER_INO (NODE_FOOTER + 4)
#define NODE_FOOTER_FLAG (NODE_FOOTER + 8)
#define OFFSET_BIT_SHIFT 3
/* XATTR_NODE_OFFSET: the node offset bits all set. */
#define XATTR_NODE_OFFSET (0xFFFFFFFFu >> OFFSET_BIT_SHIFT)

#define ADDRS_PER_BLOCK 1018		/* DEF_ADDRS_PER_BLOCK */
#define NIDS_PER_BLOCK 1018

/* xattr.h */
#define F2FS_XATTR_INDEX_VERITY 11
#define F2FS_XATTR_NAME_VERITY "v"
#define XATTR_HEADER_SIZE 24		/* struct f2fs_xattr_header */
#define XATTR_ENTRY_HEADER_SIZE 4	/* index, name_len, le16 value_size */
#define VALID_XATTR_BLOCK_SIZE NODE_FOOTER

/* dir.c / struct f2fs_dentry_block */
#define F2FS_SLOT_LEN 8
#define SIZE_OF_DIR_ENTRY 11		/* le32 hash, le32 ino, le16 len, u8 type */
#define NR_DENTRY_IN_BLOCK 214
#define SIZE_OF_DENTRY_BITMAP 27
#define DENTRY_BLOCK_DENTRIES (SIZE_OF_DENTRY_BITMAP + 3)	/* + reserved */
#define MAX_DIR_HASH_DEPTH 63

/* fs/f2fs/verity.c */
#define F2FS_VERIFY_VER 1
#define F2FS_VERITY_LOCATION_SIZE 16	/* struct fsverity_descriptor_location */

/* What the parser keeps of the superblock and checkpoint. */
struct f2fslayout_fs {
	f2fslayout_read_fn read;	/* every read of the image */
	void *read_ctx;
	int fd;				/* f2fslayout_fs_open()'s read_ctx */
	struct f2fslayout_fs_info info;
	uint32_t nat_blkaddr;
	uint32_t main_blkaddr;
	uint32_t max_blkaddr;		/* MAX_BLKADDR(): main area end */
	uint32_t max_nid;		/* NAT_ENTRY_PER_BLOCK x NAT blocks */
	uint8_t *nat_bitmap;		/* which NAT copy is current */
	uint32_t nat_bitmap_size;
	unsigned nat_journal_entries;
	uint8_t nat_journal[NAT_JOURNAL_ENTRIES * NAT_JOURNAL_ENTRY_SIZE];
};

/* f2fs_crc32(): crc32_le seeded with the magic, no final xor. */
uint32_t f2fs_crc32(uint32_t crc, const uint8_t *buf, size_t len);

/* f2fs_super.c: fill fs->info and the areas from a valid superblock. */
int f2fs_read_super(struct f2fslayout_fs *fs, uint64_t image_size);

/* len bytes of the image at off, all of them, or an error. */
static inline int f2fs_pread(const struct f2fslayout_fs *fs, void *buf,
			     size_t len, uint64_t off)
{
	return fs->read(fs->read_ctx, buf, len, off);
}

/* f2fs_checkpoint.c: the current pack, its NAT bitmap and journal. */
int f2fs_read_checkpoint(struct f2fslayout_fs *fs, uint32_t cp_blkaddr,
			 uint32_t cp_payload, uint32_t nat_segments);

/* Read 4 KiB block blkaddr (< info.block_count, checked by callers). */
int f2fs_read_block(const struct f2fslayout_fs *fs, uint32_t blkaddr,
		    uint8_t *block);

/* Is blkaddr inside the main area, as f2fs_is_valid_blkaddr() wants? */
bool f2fs_valid_main_blkaddr(const struct f2fslayout_fs *fs,
			     uint32_t blkaddr);

/*
 * f2fs_node.c: read node nid of inode ino into block: NAT lookup (journal
 * first, as f2fs_get_node_info()), block address check, footer check
 * (nid, ino, and the node offset ofs in the inode's node tree).  Sets
 * *block_addr (if not NULL) to where the node is.
 */
int f2fs_read_node(const struct f2fslayout_fs *fs, uint32_t nid,
		   uint32_t ino, uint32_t ofs, uint8_t *block,
		   uint32_t *block_addr);

/* The parts of an inode the parser uses (fs/f2fs/inode.c do_read_inode()). */
struct f2fs_inode_info {
	uint32_t ino;
	uint32_t mode;
	uint8_t advise;
	uint8_t inline_flags;
	uint32_t flags;			/* i_flags */
	uint64_t size;
	uint32_t xattr_nid;
	uint32_t current_depth;
	uint8_t dir_level;
	unsigned extra_words;		/* i_extra_isize / 4 */
	unsigned inline_xattr_words;	/* words kept for inline xattrs */
	unsigned addrs_per_inode;	/* data addresses in the inode */
	uint32_t nids[DEF_NIDS_PER_INODE];
	uint32_t node_blkaddr;		/* where the inode block is */
	uint8_t block[F2FS_BLKSIZE];	/* the inode block itself */
};

/* f2fs_inode.c */
int f2fs_read_inode(const struct f2fslayout_fs *fs, uint32_t ino,
		    struct f2fs_inode_info *ii);
/* Offset in the inode block of the inline data or dentries. */
unsigned f2fs_inline_data_offset(const struct f2fs_inode_info *ii);
/* MAX_INLINE_DATA(): bytes there. */
unsigned f2fs_max_inline_data(const struct f2fs_inode_info *ii);
/* The largest number of blocks the inode's node tree can address. */
uint64_t f2fs_max_file_blocks(const struct f2fs_inode_info *ii);

/* A growing list of extents (f2fs_map.c). */
struct f2fs_extent_list {
	struct f2fslayout_extent *v;
	size_t n, cap, max;
};

/* f2fs_file.c: index of the extent holding off in v[0..n), or n. */
size_t f2fs_find_extent(const struct f2fslayout_extent *v, size_t n,
			uint64_t off);

/*
 * f2fs_map.c: map file blocks [0, nblocks) of a regular (non-inline)
 * file through its node tree into out (sorted, holes included).
 */
int f2fs_map_blocks(const struct f2fslayout_fs *fs,
		    const struct f2fs_inode_info *ii, uint64_t nblocks,
		    struct f2fs_extent_list *out);

/*
 * f2fs_xattr.c: the value of xattr (index, name) of the inode, as
 * lookup_all_xattrs(): inline xattrs then the xattr node, one stream.
 * Copies at most size bytes to value and sets *len to the value's size;
 * -ENODATA when there is none.
 */
int f2fs_get_xattr(const struct f2fslayout_fs *fs,
		   const struct f2fs_inode_info *ii, unsigned index,
		   const char *name, void *value, size_t size, size_t *len);

/*
 * f2fs_verity.c: the descriptor location in the verity xattr, checked as
 * f2fs_get_verity_descriptor() does (pos + size never wraps).
 */
int f2fs_verity_location(const struct f2fslayout_fs *fs,
			 const struct f2fs_inode_info *ii, uint64_t *pos,
			 uint32_t *size);

/* f2fs_hash.c: f2fs_dentry_hash() of a name ("." and ".." hash to 0). */
uint32_t f2fs_dentry_hash(const uint8_t *name, size_t len);

/* A directory entry as read from a dentry block or inline dentries. */
struct f2fs_dentry {
	uint32_t hash;
	uint32_t ino;
	unsigned type;
	size_t name_len;
	const uint8_t *name;		/* not NUL-terminated */
};

/* Return 0 to go on, 1 to stop (found), or a negative error. */
typedef int (*f2fs_dentry_fn)(void *ctx, const struct f2fs_dentry *d);

/*
 * f2fs_dir.c: call fn for the entries of directory ii: all of them
 * (hash == NULL), or only those a lookup of a name hashing to *hash
 * would look at (one bucket per level, as find_in_level()).
 */
int f2fs_dir_iterate(const struct f2fslayout_fs *fs,
		     const struct f2fs_inode_info *ii, const uint32_t *hash,
		     f2fs_dentry_fn fn, void *ctx);

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline bool is_dir_mode(uint32_t mode)
{
	return (mode & 0170000) == 0040000;
}

static inline bool is_reg_mode(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

#endif /* VUBLK_F2FS_PRIVATE_H */
