#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Corrupt images through `vublk add -t verity` on the real kernel: one case
# of each class of tests/hostile/make-corrupt-images (each refusal message,
# each kind, each base image; see tests/hostile/vm_matrix.sh).  Each must
# be refused with its own message, or add and fail exactly its bad block,
# and leave no ublk device behind.  The whole matrix (~170 cases, several
# minutes under TCG) is a separate command, in docs/TESTING.md.
exec "$(dirname "$0")/../../hostile/vm_matrix.sh" --one-per-class
