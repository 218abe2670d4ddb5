// SPDX-License-Identifier: GPL-2.0-only
/*
 * request.c - one request to a running server, through its control
 * socket (daemon/core/control.c says what it answers).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"

int vublk_server_request(unsigned id, const char *req, char *reply,
			 size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char path[PATH_MAX];
	ssize_t n;
	int fd, ret = 0;

	vublk_run_path(path, sizeof(path), id, ".ctl");
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
		ret = -errno;
	else if ((n = recv(fd, reply, len - 1, 0)) <= 0)
		ret = n < 0 ? -errno : -ECONNRESET;
	else
		reply[n] = '\0';
	close(fd);
	return ret;
}
