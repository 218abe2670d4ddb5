# SPDX-License-Identifier: GPL-2.0-only
# Shared by the kernel tests that take the kernel as the oracle for
# signatures (07-signatures: fs-verity's builtin signatures;
# 10-dm-verity-signature: dm-verity's root-hash signatures; sourced, not
# run).  Both sign with openssl cms what their kernel checks a signature
# of ($SIGNED), ask the kernel (kernel_verdict SIG) and vublk
# (vublk_verdict ARGS..., with $SIG_OPT=SIG by default) for a verdict, and
# require the same one; these are the forms both try.

MAKE_TEST_PKI=$VUBLK_BUILD/tests/sig/make_test_pki
[ -x "$MAKE_TEST_PKI" ] || fail "$MAKE_TEST_PKI is missing: build first"

# trust_test_certs KEYRING NAME: the lab's test certificates (valid,
# expired, not yet valid, wrong key usage, ECDSA, a CA:
# tests/sig/make_test_pki) into KEYRING (an id or %keyring:NAME; NAME for
# the error line), and the same ones for vublk in CERTS; PKI is their
# directory.
trust_test_certs() {
	local who
	PKI=$T/pki
	mkdir -p "$PKI"
	"$MAKE_TEST_PKI" "$PKI" || fail "make_test_pki failed"
	CERTS=()
	for who in trusted expired future usage ec ca; do
		keyctl padd asymmetric '' "$1" <"$PKI/$who.der" >/dev/null ||
			fail "keyctl padd of $who.der into $2 failed"
		CERTS+=(--trusted-cert="$PKI/$who.pem")
	done
}

# cms WHO OUT OPTIONS...: a detached PKCS#7 of $SIGNED by $PKI/WHO, in DER.
cms() {
	local who=$1 out=$2
	shift 2
	openssl cms -sign -binary -in "$SIGNED" -outform DER -out "$out" \
		-signer "$PKI/$who.pem" -inkey "$PKI/$who.key.pem" "$@" ||
		fail "openssl cms -sign by $who $* failed"
}

# errno_name TEXT: the errno a strerror() text in TEXT is.
errno_name() {
	case $1 in
	*"Required key not available"*) echo ENOKEY ;;
	*"Key was rejected by service"*) echo EKEYREJECTED ;;
	*"Bad message"*) echo EBADMSG ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"Package not installed"*) echo ENOPKG ;;
	*"Invalid argument"*) echo EINVAL ;;
	*) echo "unknown ($1)" ;;
	esac
}

# check WHAT SIG WANT [VUBLK ARGS...]: the kernel answers WANT (ok or an
# errno) for SIG, and vublk the same with $SIG_OPT=SIG (or ARGS).
check() {
	local what=$1 sig=$2 want=$3 k v
	shift 3
	k=$(kernel_verdict "$sig") || exit 1
	[ "$k" = "$want" ] || fail "$what: the kernel answered $k, expected $want"
	[ $# -gt 0 ] || set -- "$SIG_OPT=$sig"
	v=$(vublk_verdict "$@") || exit 1
	if [ "$k" = ok ]; then
		[ "$v" = ok ] || fail "$what: the kernel accepts it, vublk refused: $(cat "$T/vublk.err")"
	else
		[[ $v == *"$k"* ]] ||
			fail "$what: the kernel answered $k, vublk: $(cat "$T/vublk.err")"
	fi
	say "$what: both $k"
}

# check_forms: with $T/trusted.sig (a good signature by "trusted"), the
# damaged bytes and the openssl cms forms the kernel's PKCS#7 code treats
# differently; last, the difference docs/SECURITY.md documents: the kernel
# trusts a carried signer issued by a trusted CA (pkcs7_trust.c), vublk
# builds no chain.
check_forms() {
	local k v
	head -c 300 /dev/urandom >"$T/garbage.sig"
	check "garbage" "$T/garbage.sig" EBADMSG
	head -c -10 "$T/trusted.sig" >"$T/truncated.sig"
	check "truncated" "$T/truncated.sig" EBADMSG
	cat "$T/trusted.sig" - <<<"x" >"$T/trailing.sig"
	check "a byte after the DER" "$T/trailing.sig" ok
	cms trusted "$T/nodetach.sig" -nodetach -noattr -nocerts
	check "content attached" "$T/nodetach.sig" EBADMSG
	cms trusted "$T/smimecap.sig" -nocerts
	check "S/MIME capabilities" "$T/smimecap.sig" EKEYREJECTED
	cms trusted "$T/attrs.sig" -nosmimecap -nocerts
	check "signed attributes" "$T/attrs.sig" ok
	cms expired "$T/expired-carried.sig" -nosmimecap
	check "signingTime outside the carried certificate" "$T/expired-carried.sig" EKEYREJECTED

	cms leaf "$T/leaf.sig" -noattr
	k=$(kernel_verdict "$T/leaf.sig") || exit 1
	v=$(vublk_verdict "$SIG_OPT=$T/leaf.sig") || exit 1
	[ "$k" = ok ] && [ "$v" = ENOKEY ] ||
		fail "leaf of a trusted CA: the kernel answered $k, vublk $v (docs/SECURITY.md says ok and ENOKEY)"
	say "leaf of a trusted CA: the kernel ok, vublk ENOKEY, as documented"
}
