# SPDX-License-Identifier: GPL-2.0-only
# Shared by the nbd kernel tests (sourced, not run): the ublk group's
# helpers (vublk_add, device_field, device_counter, wait_until, the
# per-test directory $T with its mount point $MNT and the del -a cleanup)
# plus an NBD server of the test's own: nbdkit on a Unix socket in $T,
# started, killed and restarted by the test, in the guest's chroot.
# Exit status: 0 pass, 1 fail, 77 skip.
. "$(dirname "${BASH_SOURCE[0]}")/../ublk/lib.sh"
need_cmd nbdkit python3

VV=$VUBLK_BUILD/tools/vublk-verity/vublk-verity
SOCK=$T/server.sock
URI="nbd+unix:///?socket=$SOCK"
NBDKIT_PID=
NBDKIT_ARGS=()

# serve ARGS...: nbdkit ARGS (filters, plugin, parameters) on $SOCK,
# listening when this returns.
serve() {
	NBDKIT_ARGS=("$@")
	restart_nbdkit
}

restart_nbdkit() {
	rm -f "$SOCK" "$T/server.pid"
	nbdkit -f -U "$SOCK" -P "$T/server.pid" "${NBDKIT_ARGS[@]}" \
		2>>"$T/server.log" &
	NBDKIT_PID=$!
	wait_until 30 test -s "$T/server.pid" ||
		fail "nbdkit ${NBDKIT_ARGS[*]} did not start: $(cat "$T/server.log")"
}

# kill_nbdkit [SIGNAL]: nbdkit dies (default -9: with its
# connections open) and is reaped.
kill_nbdkit() {
	[ -n "$NBDKIT_PID" ] || return 0
	kill "-${1:-9}" "$NBDKIT_PID" 2>/dev/null
	wait "$NBDKIT_PID" 2>/dev/null
	NBDKIT_PID=
}

# The devices go first (the ublk group's cleanup), while their server
# still answers.
trap 'cleanup; kill_nbdkit' EXIT

# Pseudo-random bytes, fast even under TCG: an AES-CTR keystream.
# random_bytes SIZE SEED
random_bytes() {
	openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$2")" \
		-iv 00000000000000000000000000000000 </dev/zero 2>/dev/null |
		head -c "$1"
}

# The sealed test image, made once per VM (or per script run alone) in
# $NBD_SHARED: an ext4 filesystem made from a tree of files with
# mkfs.ext4 -d (no mount needed), sealed with vublk-verity format.
# sealed_image sets IMG (read-only for the scripts: copy it to change it),
# DIGEST, and SUMS (the files' checksums, relative).  One file of 8 MiB
# (BIG), a few small ones.
NBD_SHARED=$(dirname "$SCRATCH")/nbd-shared
BIG=big.bin
sealed_image() {
	local tree=$NBD_SHARED/tree f digest
	IMG=$NBD_SHARED/sealed.img
	SUMS=$NBD_SHARED/sums
	if [ -s "$NBD_SHARED/digest" ]; then
		DIGEST=$(cat "$NBD_SHARED/digest")
		return 0
	fi
	need_cmd mkfs.ext4 openssl
	rm -rf "$NBD_SHARED" && mkdir -p "$tree/dir" || fail "mkdir $tree"
	random_bytes $((8 << 20)) 1 >"$tree/$BIG" || fail "writing $BIG"
	for f in 1 2 3 4; do
		random_bytes $((f * 5000 + 17)) $((f + 10)) >"$tree/dir/f$f"
	done
	(cd "$tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) \
		>"$SUMS" || fail "checksumming the tree"
	mkfs.ext4 -q -b 4096 -d "$tree" "$IMG" 16M || fail "mkfs.ext4 -d failed"
	digest=$("$VV" format "$IMG") || fail "vublk-verity format $IMG failed"
	DIGEST=${digest%% *}
	[[ $DIGEST == sha256:* ]] || fail "vublk-verity format printed '$digest'"
	echo "$DIGEST" >"$NBD_SHARED/digest"
}

check_sums() {
	(cd "$MNT" && sha256sum --quiet -c "$SUMS") ||
		fail "file contents differ ($1)"
}

# counter_above ID NAME N, in one process: the ublk group's polls run it.
counter_above() {
	local json re="\"$2\": ([0-9]+)"

	json=$("$VUBLK" list -n "$1" --json 2>/dev/null) || return 1
	json=${json#*\"stats\": \{}
	[[ $json =~ $re ]] && [ "${BASH_REMATCH[1]}" -gt "$3" ]
}

# reads_now ID: the device's read count, once its stats file exists.
reads_now() {
	wait_until 10 counter_above "$1" reads -1 ||
		fail "no stats for device $1"
	counters "$1" reads
	echo "${COUNT[reads]}"
}
