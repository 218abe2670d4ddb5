#!/bin/bash
# fs-verity builtin signatures: the kernel is the oracle.  The same data is
# enabled as an fs-verity file on a real f2fs (`fsverity enable
# --signature=`, certificates in the .fs-verity keyring) and served as a
# vublk verity device (`vublk add --trusted-cert=... --signature=`), with
# the same signature each time: both must accept it, or both refuse it
# with the same errno (vublk's one error line names the kernel's answer).
# The signatures: `vublk-verity sign` (the bytes of `fsverity sign`, also
# checked here), other keys, other data, damaged bytes, and `openssl cms`
# forms the kernel's PKCS#7 code treats differently.  The certificates:
# valid, expired, not yet valid, and of the wrong key usage (the kernel
# checks no date and no usage).  One case is the difference SECURITY.md
# documents: a signer carried in the signature and issued by a trusted CA
# satisfies the kernel, not vublk.  Then require_signatures=1 against
# --require-signature, and the signature the kernel stored with a file's
# descriptor, read by vublk --f2fs-file.
#
# Needs CONFIG_FS_VERITY_BUILTIN_SIGNATURES (both kernels of the lab,
# Debian's 6.12 and 7.3, have it) and keyctl (keyutils); skips without
# them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sig-lib.sh"
need_cmd fsverity keyctl mkfs.f2fs cmp

SYSCTL=/proc/sys/fs/verity/require_signatures
[ -e "$SYSCTL" ] ||
	skip "this kernel has no builtin fs-verity signatures ($SYSCTL is missing: CONFIG_FS_VERITY_BUILTIN_SIGNATURES is not set)"
trap 'echo 0 >"$SYSCTL"; cleanup' EXIT

# The certificates of the keyring, and the same ones for vublk.
trust_test_certs %keyring:.fs-verity .fs-verity

# A real f2fs with the verity feature, for the kernel's verdicts.
truncate -s 256M "$T/f2fs.raw"
vublk_add -t loop -f "$T/f2fs.raw"
LOOP_ID=$ID
mkfs.f2fs -q -f -O verity "$DEV" >/dev/null || fail "mkfs.f2fs -O verity failed"
mount -t f2fs "$DEV" "$MNT" || fail "mounting the f2fs failed"

# The data, sealed as an image: a partial last Merkle block, a multiple
# of 512 bytes (a block device's size).
SIZE=$(((1 << 20) + 512))
random_bytes "$SIZE" 7 >"$T/data"
cp "$T/data" "$T/img"
DIGEST=$("$VV" format "$T/img") || fail "vublk-verity format failed"
DIGEST=${DIGEST%% *}
random_bytes "$SIZE" 8 >"$T/other-data"

# sign WHO OUT: vublk-verity sign of the image by $PKI/WHO.
sign() {
	"$VV" sign "$T/img" --key="$PKI/$1.key.pem" --cert="$PKI/$1.pem" \
		--out="$2" >/dev/null || fail "vublk-verity sign by $1 failed"
}

# What the kernel checks a signature of: the formatted digest.
SIGNED=$T/formatted SIG_OPT=--signature
python3 - "$DIGEST" "$T/formatted" <<'PY' || fail "cannot write the formatted digest"
import struct, sys
alg, hexdigest = sys.argv[1].split(":")
raw = bytes.fromhex(hexdigest)
with open(sys.argv[2], "wb") as f:
    f.write(b"FSVerity" + struct.pack("<HH", {"sha256": 1, "sha512": 2}[alg],
                                      len(raw)) + raw)
PY

# kernel_verdict SIG: "ok" if the kernel enables verity on a copy of the
# data with signature SIG (none if SIG is empty), else its errno.  The
# copy is $MNT/unsigned until the kernel accepts it: a refused
# FS_IOC_ENABLE_VERITY leaves the file as it was (enable_verity() undoes
# the tree), so the next signature is tried on it; an accepted one is
# kept as $MNT/signed-by-NAME (the last check reads it with --f2fs-file).
# Process starts are what costs under TCG: a refusal is one.
kernel_verdict() {
	local f=$MNT/unsigned measured
	[ -e "$f" ] || cp "$T/data" "$f" || fail "cannot copy the data to $f"
	if ! fsverity enable "$f" ${1:+--signature="$1"} 2>"$T/kernel.err"; then
		errno_name "$(<"$T/kernel.err")"
		return
	fi
	measured=$(fsverity measure "$f") || fail "fsverity measure failed"
	[ "${measured%% *}" = "$DIGEST" ] ||
		fail "the kernel measures ${measured%% *}, vublk-verity $DIGEST"
	mv "$f" "$MNT/signed-by-${1##*/}" || fail "cannot rename $f"
	echo ok
}

# vublk_verdict ARGS...: "ok" if vublk add -t verity of the image with the
# certificates and ARGS gives a device that reads back the data, else the
# kernel errnos its one error line names.  No device may be left.
vublk_verdict() {
	local dev
	if dev=$("$VUBLK" add -t verity -f "$T/img" "${CERTS[@]}" "$@" \
			2>"$T/vublk.err"); then
		cmp -n "$SIZE" "$dev" "$T/data" >&2 || fail "$dev does not read back the data"
		"$VUBLK" del -n "${dev#/dev/ublkb}" || fail "vublk del of $dev failed"
		echo ok
		return
	fi
	refused_once "vublk add $*"
	# The errnos its line names: "(the kernel: ENOKEY)", "... or ...".
	[[ $REFUSAL =~ \(the\ kernel:\ (E[A-Z]+((,\ |\ or\ )E[A-Z]+)*) ]] &&
		echo "${BASH_REMATCH[1]}"
}

# refused_once WHAT: $T/vublk.err is one line, kept in REFUSAL, and only
# the f2fs's device is left (builtins only: no process to start).
refused_once() {
	local lines
	mapfile -t lines <"$T/vublk.err"
	[ ${#lines[@]} = 1 ] ||
		fail "$1: ${#lines[@]} error lines: $(<"$T/vublk.err")"
	REFUSAL=${lines[0]}
	[ "$(echo /dev/ublkb*)" = "/dev/ublkb$LOOP_ID" ] ||
		fail "$1 left a device: $(echo /dev/ublkb*)"
}

# A file that is not a certificate: the keyring and vublk refuse it.
printf 'not a certificate\n' >"$T/text.pem"
if keyctl padd asymmetric '' %keyring:.fs-verity <"$T/text.pem" >/dev/null 2>&1; then
	fail "the kernel's keyring took a file that is not a certificate"
fi
if "$VUBLK" add -t verity -f "$T/img" --trusted-cert="$T/text.pem" \
		>/dev/null 2>"$T/vublk.err" ||
   [ "$(wc -l <"$T/vublk.err")" != 1 ] ||
   ! grep -q "not an X.509 certificate" "$T/vublk.err"; then
	fail "vublk add --trusted-cert=<not a certificate>: $(cat "$T/vublk.err")"
fi
say "not a certificate: both refuse it"

# The signature of fsverity sign, byte for byte.
sign trusted "$T/trusted.sig"
head -c "$SIZE" "$T/img" | cmp -s - "$T/data" || fail "the image's data changed"
fsverity sign "$T/data" "$T/fsverity.sig" --key="$PKI/trusted.key.pem" \
	--cert="$PKI/trusted.pem" >/dev/null || fail "fsverity sign failed"
cmp "$T/trusted.sig" "$T/fsverity.sig" || fail "vublk-verity sign and fsverity sign differ"

check "trusted signer" "$T/trusted.sig" ok
for who in expired future usage ec; do
	sign "$who" "$T/$who.sig"
	check "$who signer" "$T/$who.sig" ok
done
sign other "$T/other.sig"
check "untrusted key" "$T/other.sig" ENOKEY
sign same-id "$T/same-id.sig"
check "trusted issuer and serial, another key" "$T/same-id.sig" EKEYREJECTED
cp "$T/other-data" "$T/other-img"
"$VV" format "$T/other-img" >/dev/null || fail "format of other-img failed"
"$VV" sign "$T/other-img" --key="$PKI/trusted.key.pem" --cert="$PKI/trusted.pem" \
	--out="$T/other-data.sig" >/dev/null || fail "signing other-img failed"
check "signature of other data" "$T/other-data.sig" EKEYREJECTED
check_forms

# Embedded, as the kernel stores it with the descriptor.
"$VV" sign "$T/img" --key="$PKI/trusted.key.pem" --cert="$PKI/trusted.pem" \
	--embed >/dev/null || fail "vublk-verity sign --embed failed"
[ "$(vublk_verdict)" = ok ] || fail "embedded signature: $(cat "$T/vublk.err")"
say "embedded signature: vublk ok"

# Signatures required: an unsigned file and image are refused.
cp "$T/data" "$T/img"
"$VV" format "$T/img" >/dev/null || fail "format again failed"
echo 1 >"$SYSCTL" || fail "cannot set $SYSCTL"
check "unsigned, signatures required" "" EPERM --require-signature
echo 0 >"$SYSCTL"

# The signature as the kernel stores it, with the descriptor of a real
# f2fs file (fs/verity/enable.c: enable_verity()): vublk --f2fs-file
# reads it there, accepts it under the certificate that signed it, and
# refuses it under another one, as the kernel's keyring would.
umount "$MNT" || fail "umount failed"
f2fs_add() {
	"$VUBLK" add -t verity -f "$T/f2fs.raw" \
		--f2fs-file=/signed-by-trusted.sig --require-signature "$@" \
		2>"$T/vublk.err"
}
dev=$(f2fs_add --trusted-cert="$PKI/trusted.pem") ||
	fail "--f2fs-file with the kernel's stored signature: $(<"$T/vublk.err")"
cmp -n "$SIZE" "$dev" "$T/data" || fail "$dev does not read back the data"
"$VUBLK" del -n "${dev#/dev/ublkb}" || fail "vublk del of $dev failed"
if dev=$(f2fs_add --trusted-cert="$PKI/ec.pem"); then
	fail "--f2fs-file: a signature by another key accepted as $dev"
fi
refused_once "--f2fs-file under another certificate"
[[ $REFUSAL == *"(the kernel: ENOKEY"* ]] ||
	fail "--f2fs-file under another certificate: $REFUSAL"
say "signature stored by the kernel in f2fs: vublk --f2fs-file ok, ENOKEY under another certificate"

"$VUBLK" del -n "$LOOP_ID" || fail "vublk del of the f2fs device failed"
say "PASS: the kernel and vublk agree on every signature"
