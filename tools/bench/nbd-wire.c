// SPDX-License-Identifier: GPL-2.0-only
/*
 * nbd-wire.c - what a bare NBD client costs the CPU that runs it: READs
 * kept DEPTH deep over a Unix socket, each request sent by its own
 * send(2) ("each"), or all those a pass over the answers frees sent by
 * one ("batch"), and the client's CPU time per GB read.  A benchmark,
 * not a test (docs/PERFORMANCE.md, "Host: one client CPU, the verify
 * thread and batched sends").
 *
 * The question it answers: would vublk gain from an NBD client of its
 * own that batches its sends, which libnbd cannot (it sends each command
 * as it is queued; MSG_MORE means nothing on a Unix socket)?  It speaks
 * just enough of the protocol for that: the fixed newstyle handshake, one
 * NBD_OPT_GO of the default export, simple replies, NBD_CMD_READ, then
 * NBD_CMD_DISC once every answer is in (nbdkit 1.32 aborts on a close
 * with requests in flight).
 *
 * Usage: nbd-wire SOCKET each|batch SECONDS [IO_SIZE [DEPTH]]
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NBD_OPTS_MAGIC 0x49484156454F5054ULL	/* "IHAVEOPT" */
#define NBD_REQUEST_MAGIC 0x25609513u
#define NBD_OPT_GO 7
#define NBD_REP_ACK 1
#define NBD_REP_INFO 3
#define NBD_INFO_EXPORT 0
#define NBD_CMD_READ 0
#define NBD_CMD_DISC 2
#define MAX_DEPTH 256

struct __attribute__((packed)) nbd_request {
	uint32_t magic;
	uint16_t flags, type;
	uint64_t handle, offset;
	uint32_t length;
};

struct __attribute__((packed)) nbd_simple_reply {
	uint32_t magic, error;
	uint64_t handle;
};

static void die(const char *what)
{
	fprintf(stderr, "nbd-wire: %s: %s\n", what,
		errno ? strerror(errno) : "the server closed the connection");
	exit(1);
}

static void recv_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, MSG_WAITALL);

		if (n <= 0) {
			if (n == 0)
				errno = 0;
			die("recv");
		}
		p += n;
		len -= (size_t)n;
	}
}

static void send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, 0);

		if (n < 0)
			die("send");
		p += n;
		len -= (size_t)n;
	}
}

/* Fixed newstyle handshake and NBD_OPT_GO of the default export: its
 * size. */
static uint64_t nbd_handshake(int fd)
{
	struct __attribute__((packed)) {
		uint64_t magic;
		uint32_t option, length, name_length;
		uint16_t nr_infos;
	} go = { htobe64(NBD_OPTS_MAGIC), htonl(NBD_OPT_GO), htonl(6), 0, 0 };
	uint32_t client_flags = htonl(3);	/* FIXED_NEWSTYLE | NO_ZEROES */
	uint8_t greeting[18], info[256];
	uint64_t size = 0;

	recv_all(fd, greeting, sizeof(greeting));
	send_all(fd, &client_flags, sizeof(client_flags));
	send_all(fd, &go, sizeof(go));
	for (;;) {
		struct __attribute__((packed)) {
			uint64_t magic;
			uint32_t option, type, length;
		} rep;
		uint32_t type, len;

		recv_all(fd, &rep, sizeof(rep));
		type = ntohl(rep.type);
		len = ntohl(rep.length);
		if (len > sizeof(info)) {
			errno = EPROTO;
			die("an option reply too long");
		}
		recv_all(fd, info, len);
		if (type == NBD_REP_INFO && len >= 10 &&
		    info[0] == 0 && info[1] == NBD_INFO_EXPORT) {
			memcpy(&size, info + 2, sizeof(size));
			size = be64toh(size);
		}
		if (type == NBD_REP_ACK)
			return size;
		if (type & 0x80000000u) {
			errno = EPROTO;
			die("NBD_OPT_GO refused");
		}
	}
}

static double now_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct wire {
	int fd;
	bool batch;
	uint32_t io_size;
	uint64_t span, next;		/* sequential offsets, wrapping */
	struct nbd_request out[MAX_DEPTH];
	unsigned nr_out;
	uint64_t sends;
};

static void wire_flush(struct wire *w)
{
	if (!w->nr_out)
		return;
	send_all(w->fd, w->out, w->nr_out * sizeof(w->out[0]));
	w->sends++;
	w->nr_out = 0;
}

/* Queue a READ for slot handle; sent at once unless batching. */
static void wire_queue_read(struct wire *w, uint64_t handle)
{
	w->out[w->nr_out++] = (struct nbd_request){
		htonl(NBD_REQUEST_MAGIC), 0, htons(NBD_CMD_READ), handle,
		htobe64(w->next), htonl(w->io_size) };
	w->next = (w->next + w->io_size) % w->span;
	if (!w->batch)
		wire_flush(w);
}

/* One answer into its slot's buffer; its slot's handle. */
static uint64_t wire_receive(struct wire *w, char *bufs)
{
	struct nbd_simple_reply r;

	recv_all(w->fd, &r, sizeof(r));
	if (r.error || r.handle >= MAX_DEPTH) {
		errno = r.error ? EIO : EPROTO;
		die("an answer");
	}
	recv_all(w->fd, bufs + r.handle * w->io_size, w->io_size);
	return r.handle;
}

/* NBD_CMD_DISC, once no request is in flight. */
static void wire_disconnect(struct wire *w)
{
	struct nbd_request disc = {
		htonl(NBD_REQUEST_MAGIC), 0, htons(NBD_CMD_DISC), 0, 0, 0 };

	send_all(w->fd, &disc, sizeof(disc));
}

static unsigned long parse(const char *what, const char *s,
			   unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "nbd-wire: bad %s '%s': expected %lu to %lu\n",
			what, s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct wire w = { 0 };
	unsigned depth, i;
	double secs, t0, c0, t, cpu;
	uint64_t bytes = 0;
	char *bufs;

	if (argc < 4 || argc > 6 || (strcmp(argv[2], "each") &&
				     strcmp(argv[2], "batch"))) {
		fprintf(stderr, "usage: nbd-wire SOCKET each|batch SECONDS [IO_SIZE [DEPTH]]\n");
		return 2;
	}
	w.batch = !strcmp(argv[2], "batch");
	secs = parse("SECONDS", argv[3], 1, 3600);
	w.io_size = argc > 4 ? parse("IO_SIZE", argv[4], 512, 1 << 25) :
			       131072;
	depth = argc > 5 ? parse("DEPTH", argv[5], 1, MAX_DEPTH) : 16;
	if (strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "nbd-wire: socket path '%s' too long\n", argv[1]);
		return 2;
	}
	strcpy(addr.sun_path, argv[1]);
	w.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (w.fd < 0 || connect(w.fd, (struct sockaddr *)&addr, sizeof(addr)))
		die(argv[1]);
	w.span = nbd_handshake(w.fd) / w.io_size * w.io_size;
	bufs = malloc((size_t)w.io_size * depth);
	if (!w.span || !bufs) {
		errno = w.span ? ENOMEM : EINVAL;
		die("the export is smaller than one request, or no memory");
	}
	t0 = now_s();
	c0 = cpu_s();
	for (i = 0; i < depth; i++)
		wire_queue_read(&w, i);
	wire_flush(&w);
	while ((t = now_s()) - t0 < secs) {
		struct nbd_simple_reply peek;

		/* batch: every whole answer already here, then one send */
		do {
			wire_queue_read(&w, wire_receive(&w, bufs));
			bytes += w.io_size;
		} while (w.batch &&
			 recv(w.fd, &peek, sizeof(peek),
			      MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof(peek));
		wire_flush(&w);
	}
	cpu = cpu_s() - c0;
	for (i = 0; i < depth; i++)
		wire_receive(&w, bufs);
	wire_disconnect(&w);
	printf("%s: %.1f MB/s, %.3f s CPU per GB, %.2f requests per send\n",
	       argv[2], bytes / (t - t0) / 1e6, cpu / (bytes / 1e9),
	       (double)(bytes / w.io_size) / (double)w.sends);
	free(bufs);
	close(w.fd);
	return 0;
}
