#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Corrupt images through `vublk add -t verity` on the real kernel: every
# case of tests/hostile/make-corrupt-images (see tests/hostile/vm_matrix.sh).
# Each must be refused with its own message, or add and fail exactly its
# bad block, and leave no ublk device behind.  About a minute under TCG on
# an idle host; `vm_matrix.sh --one-per-class` is the quick subset, which
# tests/run's sanitizer pass takes (VUBLK_ORACLE_STRIDE above 1: the big
# matrices sampled; the full matrix runs in the other kernel's pass and,
# in process, under the sanitizers on the host: hostile-corrupt-matrix).
if [ "${VUBLK_ORACLE_STRIDE:-1}" -gt 1 ]; then
	exec "$(dirname "$0")/../../hostile/vm_matrix.sh" --one-per-class
fi
exec "$(dirname "$0")/../../hostile/vm_matrix.sh"
