#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The helpers that tell a test which kernel it runs on (lib.sh:
# kernel_at_least, need_kernel, kernel_config, need_kernel_config,
# module_param) against the running kernel itself: uname, the modules the
# VM lab loaded and their parameters in /sys, f2fs's feature list.  In the
# VM the build configuration must be found and belong to this kernel;
# natively (often no /boot/config-*) those checks skip.
. "$(dirname "$0")/lib.sh"

release=$(uname -r)
IFS=. read -r major minor _ <<<"$release"
minor=${minor%%[!0-9]*}

# 1. Versions around the running one.
kernel_at_least "$major.$minor" || fail "kernel_at_least $major.$minor is false on $release"
kernel_at_least "$major.0" || fail "kernel_at_least $major.0 is false on $release"
kernel_at_least "$((major - 1)).99" || fail "kernel_at_least $((major - 1)).99 is false on $release"
! kernel_at_least "$major.$((minor + 1))" || fail "kernel_at_least $major.$((minor + 1)) is true on $release"
! kernel_at_least "$((major + 1)).0" || fail "kernel_at_least $((major + 1)).0 is true on $release"
(need_kernel "$((major + 1)).0" "a test feature") >"$T/out"
[ $? -eq 77 ] && grep -qF "needs Linux $((major + 1)).0 or newer; this is $release" "$T/out" ||
	fail "need_kernel $((major + 1)).0 did not skip with its reason: $(cat "$T/out")"
(need_kernel "$major.$minor" "a test feature") || fail "need_kernel $major.$minor skipped on $release"

# 2. The build configuration.
config=$(kernel_config BLK_DEV_UBLK)
case $? in
0) ;;
2)
	[ -z "${VUBLK_IN_VM:-}" ] ||
		fail "no kernel configuration in the VM (VUBLK_KERNEL_CONFIG=${VUBLK_KERNEL_CONFIG:-unset})"
	skip "no configuration of $release here (no /boot/config-$release or /proc/config.gz)"
	;;
*) fail "kernel_config BLK_DEV_UBLK failed" ;;
esac
# ublk_drv is there (lib.sh checked /dev/ublk-control): as a module, /sys
# has it too.
case $config in
m) [ -d /sys/module/ublk_drv ] || fail "CONFIG_BLK_DEV_UBLK=m but no /sys/module/ublk_drv" ;;
y) ;;
*) fail "CONFIG_BLK_DEV_UBLK is '$config' although /dev/ublk-control exists" ;;
esac
# f2fs lists verity among its features exactly when FS_VERITY=y.
if [ -d /sys/fs/f2fs/features ]; then
	verity=$(kernel_config FS_VERITY)
	if [ -e /sys/fs/f2fs/features/verity ]; then
		[ "$verity" = y ] || fail "f2fs has verity but CONFIG_FS_VERITY is '$verity'"
	else
		[ "$verity" != y ] || fail "CONFIG_FS_VERITY=y but f2fs lacks verity"
	fi
fi
[ -z "$(kernel_config VUBLK_NO_SUCH_OPTION)" ] || fail "kernel_config made up a value"
(need_kernel_config VUBLK_NO_SUCH_OPTION "a test feature") >"$T/out"
[ $? -eq 77 ] && grep -qF "needs CONFIG_VUBLK_NO_SUCH_OPTION, which is not set in $release" "$T/out" ||
	fail "need_kernel_config of an unset option did not skip with its reason: $(cat "$T/out")"
(need_kernel_config BLK_DEV_UBLK "ublk") || fail "need_kernel_config BLK_DEV_UBLK skipped"

# 3. Module parameters: the VM lab loads nbd with its defaults.
if [ -n "${VUBLK_IN_VM:-}" ]; then
	[ "$(kernel_config BLK_DEV_NBD)" = m ] || fail "CONFIG_BLK_DEV_NBD is '$(kernel_config BLK_DEV_NBD)', not m"
	[ "$(module_param nbd nbds_max)" = 16 ] ||
		fail "nbd's nbds_max is '$(module_param nbd nbds_max)', not its default 16"
	[ -b /dev/nbd15 ] && [ ! -e /dev/nbd16 ] || fail "nbd did not make /dev/nbd0..15"
	! module_param nbd vublk_no_such_param || fail "module_param made up a parameter"

	# A configuration of another kernel does not count.
	sed '1,5s/^\(# Linux\/[^ ]*\) [^ ]* Kernel Configuration$/\1 1.0.0 Kernel Configuration/' \
		"$VUBLK_KERNEL_CONFIG" >"$T/other-config"
	VUBLK_KERNEL_CONFIG=$T/other-config kernel_config BLK_DEV_UBLK >/dev/null
	[ $? -eq 2 ] || fail "kernel_config used a configuration of Linux 1.0.0 on $release"
fi
say "PASS ($release: CONFIG_BLK_DEV_UBLK=$config)"
