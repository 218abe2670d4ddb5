#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The verity group's tampering test (verity/02-tamper.sh) with
# --backend=pmem, on a copy of its sealed image on the DAX filesystem: a
# data byte flip -> EIO on that file, the others read; level-0 and level-1
# tree byte flips -> EIO under them; --on-corruption=stop; a wrong digest,
# a truncated image, a damaged trailer, an unsealed file -> `vublk add`
# refuses with one line and leaves no device.
. "$(dirname "$0")/lib.sh"
pmem_group_t=$T
. "$(dirname "$0")/../verity/lib.sh"
rm -rf "$pmem_group_t"	# see 05-verity-pmem.sh
trap 'cleanup; rm -rf "$PMEM_T"' EXIT

prepare_image
cp "$IMG" "$PMEM_T/f2fs.img" || fail "cannot copy the image to $PMEM_T"
VERITY_IMG=$PMEM_T/f2fs.img VERITY_BACKEND=pmem \
	"$(dirname "$0")/../verity/02-tamper.sh" ||
	fail "verity/02-tamper.sh with --backend=pmem on $PMEM_T/f2fs.img failed"
say "PASS"
