#!/bin/bash
# dm-verity root-hash signatures: the kernel is the oracle.  The same
# image is opened by `veritysetup open --root-hash-signature=SIG` (the
# kernel's dm-verity checks SIG, a PKCS#7 over the root hash as hex text,
# in dm-verity-verify-sig.c) and served by `vublk add --format=dm-verity
# --root-hash-signature=SIG --trusted-cert=...`, with the same
# certificates: both must accept it, or both refuse it with the same errno
# (vublk's one error line names the kernel's answer).  The signatures:
# the good one, other signers (expired, EC: the kernel checks no date
# and no usage), another key, another root hash,
# damaged bytes, and `openssl cms` forms the kernel's PKCS#7 code treats
# differently; then the difference docs/SECURITY.md documents (a carried
# signer issued by a trusted CA satisfies the kernel, not vublk).
#
# The kernel checks such signatures against its secondary and platform
# keyrings, which take no test certificate, and since 6.18 against
# dm-verity's own .dm-verity keyring, when the module was loaded with
# keyring_unsealed=1 and the keyring then sealed.  The lab loads it so
# where the module has that parameter (tests/vm/fetch-kernel): 7.3, not
# 6.12, where this test skips.  The keyring is sealed here, so this test
# runs once a boot.
. "$(dirname "$0")/dmv-lib.sh"
. "$(dirname "$0")/sig-lib.sh"
need_cmd keyctl openssl

UNSEALED=/sys/module/dm_verity/parameters/keyring_unsealed
[ -r "$UNSEALED" ] ||
	skip "this kernel's dm-verity has no keyring of its own ($UNSEALED is missing: Linux 6.18 brought it), and its other keyrings take no test certificate"
[ "$(cat "$UNSEALED")" = Y ] ||
	skip "dm-verity was loaded with its keyring sealed (keyring_unsealed=0): load it with keyring_unsealed=1"

# The .dm-verity keyring is linked to no keyring a process has: find its
# serial in /proc/keys (hex there, decimal for keyctl).
KEYRING=$(awk '$8 == "keyring" && $9 == ".dm-verity:" { print $1; exit }' /proc/keys)
[ -n "$KEYRING" ] || fail "no .dm-verity keyring in /proc/keys though $UNSEALED is Y"
KEYRING=$((16#$KEYRING))

# The certificates of the keyring, and the same ones for vublk.
trust_test_certs "$KEYRING" ".dm-verity (sealed already? this test runs once a boot)"
# The kernel uses the keyring only once it is sealed (restrict_link set).
keyctl restrict_keyring "$KEYRING" || fail "sealing the .dm-verity keyring failed"
if keyctl padd asymmetric '' "$KEYRING" <"$PKI/other.der" >/dev/null 2>&1; then
	fail "the sealed .dm-verity keyring took another certificate"
fi
say "the lab's certificates are in the .dm-verity keyring, sealed"

# The image: 2 MiB of data, a hash file with a superblock.
BLOCKS=512
random_bytes $((BLOCKS * 4096)) 10 >"$T/data"
ROOT=$(format "$T/data" "$T/hash") || fail "veritysetup format failed"
[ -n "$ROOT" ] || fail "veritysetup format printed no root hash"
printf %s "$ROOT" >"$T/root.txt"
OTHER_ROOT=$(printf %s "$ROOT" | tr 0-9a-f 1-9a-f0)
printf %s "$OTHER_ROOT" >"$T/other-root.txt"

# What dm-verity checks a signature of: the root hash as hex text.
SIGNED=$T/root.txt SIG_OPT=--root-hash-signature

# kernel_verdict SIG: "ok" if veritysetup opens the image with SIG and the
# device reads the data, else the errno of the kernel's refusal (what
# libdevmapper prints of the table load that failed).
kernel_verdict() {
	if ! dm_open sig "$T/data" "$T/hash" "$ROOT" --root-hash-signature="$1" \
			>"$T/kernel.err" 2>&1; then
		errno_name "$(grep -m1 'ioctl.*failed' "$T/kernel.err" || cat "$T/kernel.err")"
		return
	fi
	cmp "$DM" "$T/data" >&2 || fail "$DM does not read the data"
	dm_close sig
	echo ok
}

# vublk_verdict ARGS...: "ok" if vublk serves the image with the
# certificates and ARGS and the device reads the data, else the errnos its
# one error line names.  No device may be left.
vublk_verdict() {
	local dev lines
	if dev=$("$VUBLK" add -t verity --format=dm-verity -f "$T/data" \
			--hash-device="$T/hash" --root-hash="$ROOT" \
			"${CERTS[@]}" "$@" 2>"$T/vublk.err"); then
		cmp "$dev" "$T/data" >&2 || fail "$dev does not read the data"
		"$VUBLK" del -n "${dev#/dev/ublkb}" || fail "vublk del of $dev failed"
		echo ok
		return
	fi
	mapfile -t lines <"$T/vublk.err"
	[ ${#lines[@]} = 1 ] || fail "vublk add: ${#lines[@]} error lines: $(<"$T/vublk.err")"
	! compgen -G '/dev/ublkb*' >/dev/null ||
		fail "vublk add left a device: $(echo /dev/ublkb*)"
	[[ ${lines[0]} =~ \(the\ kernel:\ (E[A-Z]+((,\ |\ or\ )E[A-Z]+)*) ]] &&
		echo "${BASH_REMATCH[1]}"
}

cms trusted "$T/trusted.sig" -nocerts -noattr
check "trusted signer" "$T/trusted.sig" ok
# Dates and usage: one of each kind here (07-signatures has them all,
# through the same lib/sig code).
for who in expired ec; do
	cms "$who" "$T/$who.sig" -nocerts -noattr
	check "$who signer" "$T/$who.sig" ok
done
cms other "$T/other.sig" -nocerts -noattr
check "untrusted key" "$T/other.sig" ENOKEY
cms same-id "$T/same-id.sig" -nocerts -noattr
check "trusted issuer and serial, another key" "$T/same-id.sig" EKEYREJECTED
SIGNED=$T/other-root.txt cms trusted "$T/other-root.sig" -nocerts -noattr
check "signature of another root hash" "$T/other-root.sig" EKEYREJECTED
printf %s "$ROOT" | tr a-f A-F >"$T/upper.txt"
SIGNED=$T/upper.txt cms trusted "$T/upper.sig" -nocerts -noattr
check "signature of the root hash in upper case" "$T/upper.sig" EKEYREJECTED
check_forms
say "PASS: the kernel's dm-verity and vublk agree on every root-hash signature"
