// SPDX-License-Identifier: GPL-2.0-only
/*
 * descriptor.c - the fs-verity descriptor and the file digest.
 *
 * Mirrors fs/verity/open.c (fsverity_get_descriptor(),
 * fsverity_create_info(), compute_file_digest()) and
 * fs/verity/signature.c (struct fsverity_formatted_digest).
 */
#include <endian.h>
#include <string.h>

#include "merkle_private.h"

void merkle_descriptor_init(struct merkle_descriptor *d,
			    const struct merkle_params *p,
			    const uint8_t *root_hash)
{
	memset(d, 0, sizeof(*d));
	d->version = 1;
	d->hash_algorithm = (uint8_t)p->hash_alg;
	d->log_blocksize = (uint8_t)p->log_blocksize;
	d->salt_size = (uint8_t)p->salt_size;
	d->sig_size = htole32(0);
	d->data_size = htole64(p->data_size);
	memcpy(d->root_hash, root_hash, merkle_digest_size(p->hash_alg));
	memcpy(d->salt, p->salt, p->salt_size);
}

/*
 * The header checks of fs/verity/open.c: fsverity_get_descriptor().  Like
 * the kernel, a buffer longer than descriptor + signature is accepted: only
 * a signature that would overflow it (sig_space bytes) is refused.
 */
static int merkle_descriptor_check_header(const struct merkle_descriptor *d,
					  size_t sig_space)
{
	static const uint8_t zeroes[sizeof(d->reserved)];

	if (d->version != 1)
		return MERKLE_E_BAD_VERSION;
	if (memcmp(d->reserved, zeroes, sizeof(zeroes)) != 0)
		return MERKLE_E_RESERVED_NONZERO;
	if (le32toh(d->sig_size) > sig_space)
		return MERKLE_E_SIG_SIZE;
	return 0;
}

/*
 * The parameters came from the image, not from the caller: a value the
 * library does not take means the descriptor is damaged (or from a newer
 * fs-verity), which is a different failure from a caller's bad argument.
 */
static int merkle_descriptor_param_error(int err)
{
	switch (err) {
	case MERKLE_E_BAD_ALG:
		return MERKLE_E_DESC_BAD_ALG;
	case MERKLE_E_BAD_BLOCKSIZE:
		return MERKLE_E_DESC_BAD_BLOCKSIZE;
	case MERKLE_E_BAD_SALT_SIZE:
		return MERKLE_E_DESC_BAD_SALT_SIZE;
	case MERKLE_E_TOO_MANY_LEVELS:
		return MERKLE_E_DESC_TOO_MANY_LEVELS;
	default:
		return err;
	}
}

int merkle_descriptor_parse(const void *buf, size_t len,
			    struct merkle_params *p,
			    uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE],
			    uint32_t *sig_size)
{
	struct merkle_descriptor d;
	struct merkle_geometry g;
	int err;

	if (len < sizeof(d))
		return MERKLE_E_DESC_TOO_SHORT;
	if (len > MERKLE_MAX_DESCRIPTOR_SIZE)
		return MERKLE_E_DESC_TOO_LONG;
	memcpy(&d, buf, sizeof(d));
	err = merkle_descriptor_check_header(&d, len - sizeof(d));
	if (err)
		return err;

	memset(p, 0, sizeof(*p));
	p->hash_alg = d.hash_algorithm;
	p->log_blocksize = d.log_blocksize;
	p->salt_size = d.salt_size;
	p->data_size = le64toh(d.data_size);
	/* Alg, block size, salt size and depth: as fsverity_create_info(). */
	err = merkle_geometry_init(&g, p);
	if (err)
		return merkle_descriptor_param_error(err);
	memcpy(p->salt, d.salt, p->salt_size);
	memset(root_hash, 0, MERKLE_MAX_DIGEST_SIZE);
	memcpy(root_hash, d.root_hash, g.digest_size);
	*sig_size = le32toh(d.sig_size);
	return 0;
}

/* fs/verity/open.c: compute_file_digest(): sig_size is hashed as 0. */
int merkle_descriptor_digest(const struct merkle_descriptor *d,
			     uint8_t digest[MERKLE_MAX_DIGEST_SIZE])
{
	struct merkle_descriptor unsigned_desc = *d;

	if (!merkle_hash_alg_fsverity(d->hash_algorithm))
		return MERKLE_E_BAD_ALG;
	unsigned_desc.sig_size = 0;
	return merkle_hash_buffer(d->hash_algorithm, &unsigned_desc,
				  sizeof(unsigned_desc), digest);
}

/* struct fsverity_formatted_digest, what fs-verity signatures sign. */
int merkle_formatted_digest(unsigned hash_alg, const uint8_t *digest,
			    uint8_t *out)
{
	unsigned digest_size = merkle_digest_size(hash_alg);
	uint16_t alg_le = htole16((uint16_t)hash_alg);
	uint16_t size_le = htole16((uint16_t)digest_size);

	if (digest_size == 0 || !merkle_hash_alg_fsverity(hash_alg))
		return MERKLE_E_BAD_ALG;
	memcpy(out, "FSVerity", 8);
	memcpy(out + 8, &alg_le, 2);
	memcpy(out + 10, &size_le, 2);
	memcpy(out + 12, digest, digest_size);
	return 12 + (int)digest_size;
}
