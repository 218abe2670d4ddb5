#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Corrupt images through `vublk add -t verity` on the real kernel: every
# case of tests/hostile/make-corrupt-images (see tests/hostile/vm_matrix.sh).
# Each must be refused with its own message, or add and fail exactly its
# bad block, and leave no ublk device behind.  About a minute under TCG on
# an idle host; `vm_matrix.sh --one-per-class` is the quick subset.
exec "$(dirname "$0")/../../hostile/vm_matrix.sh"
