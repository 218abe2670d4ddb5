/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * openinput.h - open a file a command reads from, without waiting for a
 * FIFO's writer.
 *
 * open(2) of a FIFO for reading waits until a writer opens it, forever if
 * none ever does: a command given a FIFO where it expects an image, a key
 * or a certificate would hang before it could say anything.  The open is
 * therefore O_NONBLOCK, and the descriptor is made blocking again before
 * it is returned, since io_uring answers -EAGAIN to a read of an
 * O_NONBLOCK file that cannot be done at once, where it should wait.
 * The caller decides, from fstat(), what it refuses (a FIFO where it
 * needs a size); a pipe that already has a writer (`--key=<(...)`) reads
 * as usual.
 */
#ifndef OPENINPUT_H
#define OPENINPUT_H

/*
 * open(2) path with flags (O_RDONLY or O_RDWR, and O_DIRECT or the like;
 * O_CLOEXEC is added), not waiting for a FIFO's writer.  Returns a
 * blocking descriptor, or -errno of the open (or of the fcntl that makes
 * it blocking again, which closes it).
 */
int open_input(const char *path, int flags);

#endif /* OPENINPUT_H */
