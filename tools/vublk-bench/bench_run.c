// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_run.c - one target's read path, in-process: the daemon's own
 * target code over daemon/inproc_queue, one queue in this thread, like
 * one queue thread of the server, kept --depth requests deep.
 *
 * The target starts fresh (a verity target's tree cache is cold).
 * Sequential requests carry VUBLK_REQ_READAHEAD, as the kernel's
 * readahead requests would; random ones do not.  Every completion is
 * checked (length, no error).  Shared by `vublk-bench verity` and
 * `vublk-bench nbd`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vublk_bench.h"

/* Give a target option ("name=value" or "name") to the target's parser. */
static int bench_target_opt(struct vublk_tgt *t, const char *opt)
{
	const char *eq = strchr(opt, '=');
	size_t n = eq ? (size_t)(eq - opt) : strlen(opt);

	for (const struct option *o = t->ops->options; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, opt, n))
			return t->ops->parse_opt(t, o->val, eq ? eq + 1 : NULL);
	bench_error("the %s target has no --%.*s option", t->ops->name,
		    (int)n, opt);
	return -EINVAL;
}

static int bench_target_setup(struct bench_run *r,
			      const struct bench_target *bt)
{
	struct vublk_tgt *t = &r->tgt;
	int err = 0;

	*t = (struct vublk_tgt){
		.ops = bt->ops,
		.priv = calloc(1, bt->ops->priv_size),
		.backing_file = bt->path,
		.read_only = bt->read_only,
		.nr_queues = 1,
		.queue_depth = r->a->depth,
		.max_io_bytes = r->a->io_size,
	};
	if (!t->priv)
		return -ENOMEM;
	for (const char *const *o = bt->opts; o && *o && !err; o++)
		err = bench_target_opt(t, *o);
	if (!err)
		err = t->ops->init(t);
	if (err)
		vublk_tgt_free_priv(t);
	return err;
}

static int bench_check_shape(const struct bench_run *r)
{
	uint32_t lbs = 1U << r->tgt.logical_bs_shift;

	if (r->a->io_size % lbs) {
		bench_error("--io-size %u is not a multiple of the device's %u-byte logical block",
			    r->a->io_size, lbs);
		return -EINVAL;
	}
	if (r->a->io_size > r->size) {
		bench_error("--io-size %u is larger than the device (%" PRIu64 " bytes)",
			    r->a->io_size, r->size);
		return -EINVAL;
	}
	return 0;
}

int bench_run_open(struct bench_run *r, const struct bench_args *a,
		   const struct bench_target *bt)
{
	int err;

	/* One xorshift seed for every run: runs compared side by side
	 * read the same random offsets. */
	*r = (struct bench_run){ .args = *a, .a = &r->args,
				 .rng = 0x2545f4914f6cdd1dULL };
	err = bench_target_setup(r, bt);
	if (err)
		return err;
	r->size = bt->size ? bt->size : r->tgt.dev_size;
	if (!r->args.seconds && !r->args.bytes)
		r->args.bytes = r->size;	/* one pass */
	err = bench_check_shape(r);
	if (!err) {
		r->bufs = mmap(NULL, (size_t)a->depth * a->io_size,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		err = r->bufs == MAP_FAILED ? -ENOMEM :
		      inproc_queue_init(&r->iq, &r->tgt, 0, a->depth);
		r->queue_ready = !err;
		if (!err)
			inproc_queue_set_buffers(&r->iq, r->bufs,
						 a->io_size);
		if (err)
			bench_error("cannot set up the in-process queue: %s",
				    strerror(-err));
	}
	if (err)
		bench_run_close(r);
	return err;
}

/* --bytes: all issued. */
static bool bench_should_stop_bytes(const struct bench_run *r)
{
	return !r->a->seconds && r->issued >= r->a->bytes;
}

static bool bench_should_stop(const struct bench_run *r)
{
	if (r->a->seconds)
		return bench_now() - r->start >= r->a->seconds;
	return bench_should_stop_bytes(r);
}

static uint64_t bench_next_offset(struct bench_run *r, uint32_t *len)
{
	uint64_t size = r->size, off;

	if (r->a->pattern == BENCH_SEQ) {
		if (r->next_off >= size)
			r->next_off = 0;
		off = r->next_off;
		*len = size - off < r->a->io_size ? size - off : r->a->io_size;
		r->next_off += *len;
		return off;
	}
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	*len = r->a->io_size;
	return r->rng % (size / *len) * *len;
}

static void bench_issue(struct bench_run *r, unsigned tag)
{
	struct vublk_req req = {
		.op = VUBLK_OP_READ,
		.flags = r->a->pattern == BENCH_SEQ ? VUBLK_REQ_READAHEAD : 0,
		.buf = r->bufs + (size_t)tag * r->a->io_size,
	};

	req.offset = bench_next_offset(r, &req.len);
	r->issued += req.len;
	inproc_queue_start(&r->iq, tag, &req);
}

int bench_run_loop(struct bench_run *r)
{
	unsigned tag;
	int res, err;

	r->start = bench_now();
	r->cpu_start = bench_cpu_now();
	for (tag = 0; tag < r->a->depth && !bench_should_stop(r); tag++)
		bench_issue(r, tag);
	while (r->iq.in_flight) {
		bool stop;

		err = inproc_queue_reap(&r->iq);
		if (err) {
			bench_error("io_uring failed: %s", strerror(-err));
			return err;
		}
		/* The clock once per pass, not per request: a clock read is
		 * about 1% of a verified 4 KiB read, and the daemon has none. */
		stop = bench_should_stop(r);
		while (inproc_queue_pop(&r->iq, &tag, &res)) {
			if (res < 0)
				r->errors++;
			else
				r->done += (uint64_t)res;
			r->requests++;
			if (!stop && !(stop = bench_should_stop_bytes(r)))
				bench_issue(r, tag);
		}
	}
	r->elapsed = bench_now() - r->start;
	r->cpu = bench_cpu_now() - r->cpu_start;
	return 0;
}

void bench_run_close(struct bench_run *r)
{
	if (r->queue_ready)
		inproc_queue_exit(&r->iq);
	r->queue_ready = false;
	if (r->bufs && r->bufs != MAP_FAILED)
		munmap(r->bufs, (size_t)r->a->depth * r->a->io_size);
	r->bufs = NULL;
	if (r->tgt.priv) {
		r->tgt.ops->deinit(&r->tgt);
		vublk_tgt_free_priv(&r->tgt);
	}
}
