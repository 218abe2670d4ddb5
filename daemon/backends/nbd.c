// SPDX-License-Identifier: GPL-2.0-only
/*
 * nbd.c - the "nbd" backend: an export of a Network Block Device server
 * (nbdkit, qemu-nbd, nbd-server...), named by an NBD URI
 * (nbd://HOST[:PORT]/EXPORT, nbd+unix:///EXPORT?socket=PATH, nbds://
 * with TLS), through libnbd.
 *
 * open connects once, in the main thread, and learns what the export
 * offers (size, read-only, flush, FUA, trim, zero, block sizes,
 * multi-conn), as the kernel's nbd driver learns it from the handshake
 * (drivers/block/nbd.c: nbd_parse_flags()).  That connection serves
 * read_sync (the verity target's metadata) and is then taken over by the
 * first queue; each other queue connects on its own, which NBD allows
 * only when the server advertises multi-conn (NBD_FLAG_CAN_MULTI_CONN:
 * "the cache semantics are consistent across connections").  Without
 * it the device has one queue: several queues would share one socket
 * anyway, at the cost of handing every answer across threads.
 *
 * Requests: nbd_io.c; the connection and its polls: nbd_conn.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd.h"

/* The NBD spec's advice when the server names no maximum block size. */
#define NBD_DEFAULT_MAX_PAYLOAD (32u << 20)
/* A preferred block size past this is a hint we do not pass on. */
#define NBD_MAX_IO_MIN_SHIFT 20

static unsigned nbd_log2(uint64_t v)
{
	return 63 - (unsigned)__builtin_clzll(v);
}

/* Whether the URI's scheme (before "://") holds transport ("+unix",
 * "+vsock"): only the scheme says the transport, a query may hold the
 * same text. */
static bool nbd_scheme_has(const char *uri, const char *transport)
{
	const char *sep = strstr(uri, "://");

	return sep && memmem(uri, sep - uri, transport, strlen(transport));
}

/* [s, s + n) with its %XX escapes decoded, into out (size > n). */
static void nbd_uri_unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int hi = i + 2 < n ? vublk_hex_value(s[i + 1]) : -1;
		int lo = i + 2 < n ? vublk_hex_value(s[i + 2]) : -1;

		if (s[i] == '%' && hi >= 0 && lo >= 0) {
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

/*
 * The decoded value of the URI's query parameter name (socket=PATH) into
 * out (out_size), as libnbd reads it (lib/uri.c: parse_uri_queries()):
 * parameters end at the next '&', or where there is none at the next
 * ';'; names and values are %-decoded; the last one of the name counts.
 * False if there is none, or it does not fit.
 */
static bool nbd_query_param(const char *uri, const char *name, char *out,
			    size_t out_size)
{
	const char *q = strchr(uri, '?');
	char key[64];
	bool found = false;

	while (q && *++q) {
		const char *end = strchr(q, '&'), *eq;

		if (!end)
			end = strchr(q, ';');
		if (!end)
			end = q + strlen(q);
		eq = memchr(q, '=', end - q);
		if (eq && (size_t)(eq - q) < sizeof(key) &&
		    (size_t)(end - eq) <= out_size) {
			nbd_uri_unescape(q, eq - q, key);
			if (!strcmp(key, name)) {
				nbd_uri_unescape(eq + 1, end - eq - 1, out);
				found = true;
			}
		}
		q = *end ? end : NULL;
	}
	return found;
}

/* The daemon runs from /: a relative socket path would name another
 * file there. */
static int nbd_check_socket(const char *uri)
{
	char sock[PATH_MAX];

	if (!nbd_scheme_has(uri, "+unix") ||
	    !nbd_query_param(uri, "socket", sock, sizeof(sock)) ||
	    sock[0] == '/')
		return 0;
	vublk_error("nbd %s: give the socket as an absolute path (socket=/...): the server does not run in this directory",
		    uri);
	return -EINVAL;
}

/* A TCP URI's port (nbd://[USER@]HOST[:PORT]/...) is a number from 1 to
 * 65535, or absent (10809): getaddrinfo() takes 99999 as 99999 % 65536
 * and the connection would go to another port. */
static int nbd_check_port(const char *uri)
{
	const char *host = strstr(uri, "://"), *end, *at, *colon;
	char *stop;
	unsigned long port;

	if (!host || nbd_scheme_has(uri, "+unix") ||
	    nbd_scheme_has(uri, "+vsock"))
		return 0;
	host += 3;
	end = host + strcspn(host, "/?#");
	at = memrchr(host, '@', end - host);
	if (at)
		host = at + 1;
	colon = memrchr(host, ':', end - host);
	/* none, an IPv6 literal's own ([::1]), or an empty port */
	if (!colon || memchr(colon, ']', end - colon) || colon + 1 == end)
		return 0;
	port = strtoul(colon + 1, &stop, 10);
	if (isdigit((unsigned char)colon[1]) && stop == end && port >= 1 &&
	    port <= 65535)
		return 0;
	vublk_error("nbd %s: port '%.*s' is not a port number (1 to 65535)",
		    uri, (int)(end - colon - 1), colon + 1);
	return -EINVAL;
}

static int nbd_check_uri(const char *uri)
{
	int ret = nbd_check_socket(uri);

	return ret ? ret : nbd_check_port(uri);
}

/* Block sizes: the smallest the server accepts (ublk allows 512 to
 * 4096), the one it prefers, the largest command. */
static int nbd_read_block_sizes(struct vublk_backend *be,
				struct nbd_backend *nb, struct nbd_handle *h)
{
	int64_t min = nbd_get_block_size(h, LIBNBD_SIZE_MINIMUM);
	int64_t pref = nbd_get_block_size(h, LIBNBD_SIZE_PREFERRED);
	int64_t max = nbd_get_block_size(h, LIBNBD_SIZE_MAXIMUM);

	if (min > 4096) {
		vublk_error("nbd %s: the server's minimum block size is %" PRId64 " bytes, more than the 4096 a ublk device can have",
			    nb->uri, min);
		return -EINVAL;
	}
	be->block_shift = min > 512 ? nbd_log2((uint64_t)min) : 9;
	be->block_size_strict = true;
	/* libnbd copies the payload to and from the socket: any address. */
	be->mem_align = 1;
	be->io_min_shift = pref > 0 ? nbd_log2((uint64_t)pref) : 12;
	if (be->io_min_shift < be->block_shift)
		be->io_min_shift = be->block_shift;
	if (be->io_min_shift > NBD_MAX_IO_MIN_SHIFT)
		be->io_min_shift = NBD_MAX_IO_MIN_SHIFT;
	nb->max_payload = max > 0 && max < NBD_DEFAULT_MAX_PAYLOAD ?
			  (uint32_t)max : NBD_DEFAULT_MAX_PAYLOAD;
	nb->max_payload &= ~((1u << be->block_shift) - 1);
	if (!nb->max_payload) {
		vublk_error("nbd %s: the server's maximum block size (%" PRId64 " bytes) is below its minimum",
			    nb->uri, max);
		return -EINVAL;
	}
	return 0;
}

/* What the export offers, from the handshake. */
static int nbd_read_export(struct vublk_backend *be, struct nbd_backend *nb,
			   struct nbd_handle *h)
{
	int64_t size = nbd_get_size(h);

	if (size < 0) {
		vublk_error("nbd %s: the server did not give the export's size: %s",
			    nb->uri, nbd_get_error());
		return -EPROTO;
	}
	if (!nb->read_only && nbd_is_read_only(h) != 0) {
		vublk_error("nbd %s: the export is read-only (add --read-only)",
			    nb->uri);
		return -EROFS;
	}
	nb->size = be->size = (uint64_t)size;
	nb->can_flush = nbd_can_flush(h) == 1;
	nb->can_fua = nbd_can_fua(h) == 1;
	nb->can_trim = nbd_can_trim(h) == 1;
	nb->can_zero = nbd_can_zero(h) == 1;
	nb->multi_conn = nbd_can_multi_conn(h) == 1;
	be->volatile_cache = !nb->read_only && nb->can_flush;
	be->max_queues = nb->multi_conn ? 0 : 1;
	be->remote = true;
	return nbd_read_block_sizes(be, nb, h);
}

static void nbd_set_options(struct nbd_backend *nb,
			    const struct vublk_backend *be)
{
	const struct vublk_backend_cfg *cfg = be->cfg;

	nb->uri = be->path;
	nb->read_only = be->flags & VUBLK_BACKEND_READ_ONLY;
	nb->retries = cfg->retries_set ? cfg->retries :
		      VUBLK_BACKEND_DEFAULT_RETRIES;
	nb->timeout_ns = (uint64_t)(cfg->timeout_set ? cfg->timeout_s :
				    VUBLK_BACKEND_DEFAULT_TIMEOUT_S) *
			 VUBLK_NS_PER_S;
}

/* The first connection, within --timeout; 0 or -errno. */
static int nbd_connect_first(struct nbd_backend *nb, struct nbd_conn **out)
{
	char why[sizeof(((struct nbd_conn *)0)->why)];
	int err = nbd_conn_start(nb, out, why, sizeof(why));

	if (err) {
		vublk_error("nbd %s: cannot connect: %s", nb->uri, why);
		return err;
	}
	err = nbd_conn_wait_ready(*out, vublk_now_ns() + nb->timeout_ns);
	if (err) {
		vublk_error("nbd %s: cannot connect: %s (is the server running, and is this its export?)",
			    nb->uri, (*out)->why);
		nbd_conn_free(*out);
	}
	return err;
}

static int nbd_open(struct vublk_backend *be)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_conn *c;
	int ret;

	nbd_set_options(nb, be);
	if (be->flags & VUBLK_BACKEND_DIRECT) {
		vublk_error("nbd %s: --direct bypasses a local page cache, which an NBD export does not go through (drop --direct)",
			    nb->uri);
		return -EINVAL;
	}
	ret = nbd_check_uri(nb->uri);
	if (ret)
		return ret;
	ret = nbd_connect_first(nb, &c);
	if (ret)
		return ret;
	ret = nbd_read_export(be, nb, c->h);
	if (ret) {
		nbd_conn_free(c);
		return ret;
	}
	atomic_store(&nb->first_conn, c);
	vublk_info("nbd %s: %" PRIu64 " bytes%s, flush %s, FUA %s, trim %s, zero %s, multi-conn %s, blocks %u..%u bytes, --retry=%u --timeout=%" PRIu64,
		   nb->uri, nb->size, nb->read_only ? " read-only" : "",
		   nb->can_flush ? "yes" : "no", nb->can_fua ? "yes" : "no",
		   nb->can_trim ? "yes" : "no", nb->can_zero ? "yes" : "no",
		   nb->multi_conn ? "yes" : "no (one queue)",
		   1u << be->block_shift, nb->max_payload, nb->retries,
		   nb->timeout_ns / VUBLK_NS_PER_S);
	return 0;
}

static void nbd_close_backend(struct vublk_backend *be)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_conn *c = atomic_exchange(&nb->first_conn, NULL);

	if (c)
		nbd_conn_free(c);
}

/* Before any queue runs, on open's connection. */
static int nbd_read_sync(struct vublk_backend *be, void *buf, size_t len,
			 uint64_t pos)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_conn *c = atomic_load(&nb->first_conn);

	if (!c)
		return -EBUSY;	/* a queue took it: too late */
	return nbd_conn_pread_sync(c, buf, len, pos, nb->max_payload,
				   vublk_now_ns() + nb->timeout_ns);
}

static uint64_t nbd_counter(atomic_uint_fast64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

static void nbd_report(struct vublk_backend *be, struct vublk_stats_out *out)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_counters *c = &nb->counters;

	vublk_stat_bool(out, "multi_conn", nb->multi_conn);
	vublk_stat_u64(out, "nbd_commands", nbd_counter(&c->commands));
	vublk_stat_u64(out, "resends", nbd_counter(&c->resends));
	vublk_stat_u64(out, "connections_lost",
		       nbd_counter(&c->connections_lost));
	vublk_stat_u64(out, "connect_failures",
		       nbd_counter(&c->connect_failures));
	vublk_stat_u64(out, "reconnects", nbd_counter(&c->reconnects));
	vublk_stat_u64(out, "timeouts", nbd_counter(&c->timeouts));
	vublk_stat_u64(out, "server_errors", nbd_counter(&c->server_errors));
	vublk_stat_u64(out, "requests_failed",
		       nbd_counter(&c->requests_failed));
	vublk_stat_u64(out, "unflushed_losses",
		       nbd_counter(&c->unflushed_losses));
}

const struct vublk_backend_ops vublk_backend_nbd = {
	.name = "nbd",
	.summary = "an NBD export (nbd://, nbd+unix://, nbds://) through libnbd",
	.priv_size = sizeof(struct nbd_backend),
	.open = nbd_open,
	.close = nbd_close_backend,
	.read_sync = nbd_read_sync,
	.queue_init = nbd_io_queue_init,
	.queue_deinit = nbd_io_queue_deinit,
	.submit = nbd_io_submit,
	.report = nbd_report,
};
