/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * control.h - the server's control socket (control.c), private to core/.
 */
#ifndef VUBLK_CONTROL_H
#define VUBLK_CONTROL_H

struct vublk_server;

/* What a request leaves the server to do (ublk_control_serve()). */
#define UBLK_CONTROL_STOP	1	/* the device is stopped: end */
#define UBLK_CONTROL_QUIESCED	2	/* leave the device to a new server */

/* Create cfg->control_path (none if NULL or ""); 0 or -errno. */
int ublk_control_listen(struct vublk_server *s);
void ublk_control_close(struct vublk_server *s);
/* Answer one request waiting on the socket: 0 (serve on) or one of the
 * UBLK_CONTROL_* above. */
int ublk_control_serve(struct vublk_server *s);

#endif /* VUBLK_CONTROL_H */
