// SPDX-License-Identifier: GPL-2.0-only
/*
 * notify.c - tell a service manager that the device is live.
 *
 * systemd starts vublk@NAME.service (Type=notify) with `vublk add
 * --foreground`: the server is the service's main process, and the unit
 * counts as started, so that the file systems on the device may be
 * mounted, only once the server sends "READY=1" to $NOTIFY_SOCKET, a
 * datagram socket (sd_notify(3); "@name" is an abstract socket).  The
 * protocol is one sendto(), so no libsystemd for it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"

void vublk_notify_ready(void)
{
	static const char msg[] = "READY=1\n";
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || !*path)
		return;	/* not started by a service manager */
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path)) {
		vublk_error("NOTIFY_SOCKET '%s' is not a socket path: the service manager is not told that the device is live",
			    path);
		return;
	}
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    sendto(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len) < 0)
		vublk_error("cannot tell the service manager that the device is live (NOTIFY_SOCKET %s): %s",
			    path, strerror(errno));
	if (fd >= 0)
		close(fd);
}
