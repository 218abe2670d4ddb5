// SPDX-License-Identifier: GPL-2.0-only
/*
 * nbd_server.c - a test's own NBD server (see nbd_server.h).
 *
 * Both servers write a pid file once their socket listens (nbdkit -P,
 * qemu-nbd --pid-file), which is when a client may connect: waiting for it
 * needs no probe connection, which a server would log or count.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nbd_server.h"

/* A server under TCG or valgrind may take a while to start. */
#define NBD_SERVER_START_MS 20000

static void nbd_server_exec(char *const *argv)
{
	/* Dies with the test (the thread that forks it: the main one),
	 * whatever happens to the test. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	execvp(argv[0], argv);
	fprintf(stderr, "FAIL: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for the pid file; 0, or -1 if the server died or took too long. */
static int nbd_server_wait(struct nbd_server *s)
{
	struct timespec pause = { .tv_nsec = 5 * 1000 * 1000 };
	struct stat st;
	int status;

	for (int waited = 0; waited < NBD_SERVER_START_MS; waited += 5) {
		if (stat(s->pidfile, &st) == 0 && st.st_size > 0)
			return 0;
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			printf("FAIL: %s exited (status 0x%x) before listening on %s\n",
			       s->argv[0], status, s->sock);
			s->pid = 0;
			return -1;
		}
		nanosleep(&pause, NULL);
	}
	printf("FAIL: %s did not listen on %s within %d s\n", s->argv[0],
	       s->sock, NBD_SERVER_START_MS / 1000);
	nbd_server_kill(s, SIGKILL);
	return -1;
}

int nbd_server_restart(struct nbd_server *s)
{
	unlink(s->sock);	/* a server killed with -9 leaves it */
	unlink(s->pidfile);
	s->pid = fork();
	if (s->pid < 0) {
		printf("FAIL: fork: %s\n", strerror(errno));
		s->pid = 0;
		return -1;
	}
	if (s->pid == 0)
		nbd_server_exec(s->argv);
	return nbd_server_wait(s);
}

/* argv: head (the command and its socket and pid file options), then
 * args. */
static int nbd_server_setup(struct nbd_server *s, const char *dir,
			    const char *name, const char *const *head,
			    const char *const *args)
{
	unsigned n = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->sock, sizeof(s->sock), "%s/%s.sock", dir, name);
	snprintf(s->pidfile, sizeof(s->pidfile), "%s/%s.pid", dir, name);
	snprintf(s->uri, sizeof(s->uri), "nbd+unix:///?socket=%s", s->sock);
	for (; *head; head++)
		s->argv[n++] = strdup(*head);
	for (; args && *args; args++) {
		if (n == NBD_SERVER_MAX_ARGS) {
			printf("FAIL: too many server arguments\n");
			return -1;
		}
		s->argv[n++] = strdup(*args);
	}
	s->argv[n] = NULL;
	for (unsigned i = 0; i < n; i++)
		if (!s->argv[i])
			return -1;
	return 0;
}

int nbd_server_start(struct nbd_server *s, const char *dir, const char *name,
		     const char *const *args)
{
	char sock[256], pidfile[256];
	const char *head[] = { "nbdkit", "-f", "-U", sock, "-P", pidfile,
			       NULL };

	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", dir, name);
	if (nbd_server_setup(s, dir, name, head, args))
		return -1;
	return nbd_server_restart(s);
}

int nbd_server_start_qemu(struct nbd_server *s, const char *dir,
			  const char *name, const char *const *args)
{
	char sock[256], pidfile[256];
	/* -t: keep serving after a client leaves. */
	const char *head[] = { "qemu-nbd", "-t", "-k", sock, "--pid-file",
			       pidfile, NULL };

	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", dir, name);
	if (nbd_server_setup(s, dir, name, head, args))
		return -1;
	s->qemu = true;
	return nbd_server_restart(s);
}

int nbd_server_start_script(struct nbd_server *s, const char *dir,
			    const char *name, const char *script,
			    const char *const *args)
{
	char sock[256], pidfile[256];
	const char *head[] = { "python3", script, sock, pidfile, NULL };

	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", dir, name);
	if (nbd_server_setup(s, dir, name, head, args))
		return -1;
	return nbd_server_restart(s);
}

bool nbd_server_exited(struct nbd_server *s)
{
	if (s->pid <= 0 || waitpid(s->pid, NULL, WNOHANG) != s->pid)
		return false;
	s->pid = 0;
	return true;
}

void nbd_server_kill(struct nbd_server *s, int sig)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, sig);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	s->pid = 0;
}

void nbd_server_stop(struct nbd_server *s)
{
	nbd_server_kill(s, SIGTERM);
	unlink(s->sock);
	unlink(s->pidfile);
	for (unsigned i = 0; s->argv[i]; i++)
		free(s->argv[i]);
	memset(s, 0, sizeof(*s));
}
