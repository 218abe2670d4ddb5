/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nbd_server.h - an NBD server of a test's own (nbdkit, or qemu-nbd) on a
 * Unix socket: started from the test, stopped by it, killed and started
 * again on the same socket when the test asks.  For the host tests of the
 * nbd backend (tests/nbd) and the verity target over it (tests/verity).
 */
#ifndef VUBLK_TEST_NBD_SERVER_H
#define VUBLK_TEST_NBD_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

#define NBD_SERVER_MAX_ARGS 32

struct nbd_server {
	char sock[256];		/* the Unix socket it listens on */
	char pidfile[256];	/* nbdkit writes it once it listens */
	char uri[300];		/* nbd+unix:///?socket=SOCK */
	char *argv[NBD_SERVER_MAX_ARGS + 8];	/* to start it again */
	bool qemu;		/* qemu-nbd, not nbdkit */
	pid_t pid;		/* 0: not running */
};

/*
 * Start `nbdkit -f -U SOCK -P PIDFILE ARGS...` (args
 * NULL-terminated: filters, the plugin and its parameters), SOCK named
 * after name in dir, and wait until it listens.  0, or -1 after a FAIL
 * line.
 */
int nbd_server_start(struct nbd_server *s, const char *dir, const char *name,
		     const char *const *args);
/* The same with `qemu-nbd -k SOCK ARGS...`, ready once it accepts a
 * connection. */
int nbd_server_start_qemu(struct nbd_server *s, const char *dir,
			  const char *name, const char *const *args);
/* The same with `python3 SCRIPT SOCK PIDFILE ARGS...`: a server of the
 * test's own (tests/nbd/hostile-reads.py). */
int nbd_server_start_script(struct nbd_server *s, const char *dir,
			    const char *name, const char *script,
			    const char *const *args);
/* Start it again, with the same arguments on the same socket. */
int nbd_server_restart(struct nbd_server *s);
/* It ran and has exited (reaped then: a restart may follow). */
bool nbd_server_exited(struct nbd_server *s);
/* Send sig (SIGKILL: it dies with connections open) and reap it. */
void nbd_server_kill(struct nbd_server *s, int sig);
/* Stop it (SIGTERM) and forget its arguments. */
void nbd_server_stop(struct nbd_server *s);

#endif /* VUBLK_TEST_NBD_SERVER_H */
