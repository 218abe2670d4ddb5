#!/bin/bash
# vublk-verity sign against fsverity-utils as the oracle: for the same
# data, tree parameters, key and certificate, `vublk-verity sign --out`
# writes the bytes `fsverity sign` writes (RSA keys: ECDSA signatures are
# randomized, in fsverity-utils too); --embed stores exactly those bytes
# after the descriptor, with a location record that covers them and the
# data, tree and digest unchanged; `vublk-verity verify --trusted-cert`
# checks the embedded or a given signature.  Then the refusals, each one
# line.  The kernel's own verdict on the same signatures is the VM test
# tests/kernel-tests/verity/07-signatures.sh.
# Arguments: vublk-verity, make_test_pki (tests/sig).
MAKE_TEST_PKI=$(realpath "$2")
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

mkdir pki
"$MAKE_TEST_PKI" pki
KEY=pki/trusted.key.pem
CERT=pki/trusted.pem
cat "$KEY" "$CERT" >both.pem

# The bytes of FILE from OFFSET, LENGTH of them.
slice() {
	tail -c +"$(($2 + 1))" "$1" | head -c "$3"
}

# check_embedded IMAGE SIG: IMAGE holds SIG after its descriptor, and its
# metadata says so.
check_embedded() {
	local sig_size desc_pos desc_size image_size
	"$VV" dump --json "$1" >"$WORK/dump.json"
	read -r sig_size desc_pos desc_size image_size < <(json_fields \
		"$WORK/dump.json" descriptor.sig_size location.desc_pos \
		location.desc_size location.image_size)
	[ "$sig_size" = "$(stat -c %s "$2")" ] ||
		fail "$1: sig_size $sig_size, signature $(stat -c %s "$2") bytes"
	[ "$desc_size" = $((256 + sig_size)) ] ||
		fail "$1: location record covers $desc_size bytes, not 256 + $sig_size"
	[ $((image_size % 4096)) = 0 ] && [ "$(stat -c %s "$1")" = "$image_size" ] ||
		fail "$1: image size $image_size"
	slice "$1" $((desc_pos + 256)) "$sig_size" | cmp -s - "$2" ||
		fail "$1: the bytes after the descriptor are not $2"
}

# sign_case SIZE SEED PARAMS...: one image, every form of signing.
sign_case() {
	local size=$1 seed=$2 desc_pos
	shift 2
	gen_data "$size" "$seed" data
	cp data img
	"$VV" format img "$@" >"$WORK/format.out"
	fsverity digest data "$@" >"$WORK/want.out"
	sed -i 's/ data$/ img/' "$WORK/want.out"

	"$VV" sign img --key="$KEY" --cert="$CERT" --out=img.sig >"$WORK/out"
	cmp -s "$WORK/out" "$WORK/want.out" ||
		fail "sign $size $*: printed $(cat "$WORK/out"), not the digest"
	fsverity sign data fsverity.sig --key="$KEY" --cert="$CERT" "$@" >/dev/null
	cmp img.sig fsverity.sig ||
		fail "sign $size $*: not the bytes of fsverity sign"
	# No --cert: the key file holds both, as fsverity sign takes it.
	"$VV" sign img --key=both.pem --out=img2.sig >/dev/null
	fsverity sign data fsverity2.sig --key=both.pem "$@" >/dev/null
	cmp img2.sig fsverity2.sig || fail "sign $size $*: one file for both"
	# Key and certificate through pipes, as from a password store.
	"$VV" sign img --key=<(cat "$KEY") --cert=<(cat "$CERT") \
		--out=img3.sig >/dev/null
	cmp img3.sig fsverity.sig || fail "sign $size $*: key and cert from pipes"
	# The signature into a pipe, as fsverity sign writes to /dev/stdout.
	"$VV" sign img --key="$KEY" --cert="$CERT" --out=/dev/stdout |
		head -c "$(stat -c %s fsverity.sig)" | cmp - fsverity.sig ||
		fail "sign $size $*: --out=/dev/stdout into a pipe"

	desc_pos=$("$VV" dump --json img >"$WORK/dump.json" &&
		   json_fields "$WORK/dump.json" location.desc_pos)
	slice img 0 "$((desc_pos + 256))" >"$WORK/before"
	"$VV" sign img --key="$KEY" --cert="$CERT" --embed >/dev/null
	check_embedded img img.sig
	slice img 0 "$((desc_pos + 4))" | cmp -s - <(head -c "$((desc_pos + 4))" "$WORK/before") ||
		fail "sign --embed $size $*: data, tree or descriptor head changed"
	"$VV" verify img --trusted-cert="$CERT" >"$WORK/out"
	cmp -s "$WORK/out" "$WORK/want.out" || fail "verify after --embed $size $*"

	# Signed again by another key: replaced; the given one is checked
	# instead of the embedded one.
	"$VV" sign img --key=pki/ec.key.pem --cert=pki/ec.pem --embed --out=ec.sig >/dev/null
	check_embedded img ec.sig
	"$VV" verify img --trusted-cert=pki/ec.der >/dev/null ||
		fail "$size $*: ECDSA signature not verified"
	"$VV" verify img --trusted-cert=pki/trusted.der --signature=img.sig >/dev/null ||
		fail "$size $*: --signature not checked instead of the embedded one"
	expect_error 1 "'img': the embedded signature is refused: not signed by a trusted certificate .*issuer 'CN=vublk test ec'" \
		"$VV" verify img --trusted-cert="$CERT"
}

sign_case $((3 * 4096 + 1000)) 1
sign_case 0 2
sign_case 40000 3 --hash-alg=sha512 --block-size=1024 --salt=0011aabb
sign_case $((1 << 20)) 4 --block-size=65536

# The kernel accepts what it never checks: dates and key usage.
gen_data 20000 5 data
cp data img
"$VV" format img >/dev/null
for who in expired future usage; do
	"$VV" sign img --key=pki/$who.key.pem --cert=pki/$who.pem --out=$who.sig >/dev/null
	run_capture "$VV" verify img --trusted-cert=pki/$who.pem --signature=$who.sig
	[ "$status" = 0 ] || fail "$who: exit $status: $(cat "$WORK/err")"
	grep -q "warning: 'img': the --signature file verifies: signed by 'CN=vublk test $who', .*: accepted, as the kernel accepts it" "$WORK/err" ||
		fail "$who: no warning: $(cat "$WORK/err")"
done

# Refusals: one line each, exit 1 (the image does not verify) or 2.
"$VV" sign img --key="$KEY" --cert="$CERT" --out=good.sig >/dev/null
"$VV" sign img --key=pki/same-id.key.pem --cert=pki/same-id.pem --out=same-id.sig >/dev/null
head -c 100 good.sig >cut.sig
printf 'not a signature' >text.sig
head -c 20000 /dev/zero >big.sig
expect_error 1 "the --signature file is refused: does not verify with the trusted certificate's key.*EKEYREJECTED" \
	"$VV" verify img --trusted-cert="$CERT" --signature=same-id.sig
expect_error 1 "the --signature file is refused: malformed: not a DER PKCS#7 SignedData \(the kernel: EBADMSG\)" \
	"$VV" verify img --trusted-cert="$CERT" --signature=cut.sig
expect_error 1 "the --signature file is refused: malformed" \
	"$VV" verify img --trusted-cert="$CERT" --signature=text.sig
expect_error 2 "invalid --signature 'big.sig': signature larger than 16128 bytes" \
	"$VV" verify img --trusted-cert="$CERT" --signature=big.sig
expect_error 2 "invalid --signature 'missing': No such file" \
	"$VV" verify img --trusted-cert="$CERT" --signature=missing
# Nothing to read is said as such, not parsed as "malformed"; a FIFO
# whose writer is not there yet is not waited for.
: >empty.sig
mkfifo nowriter.sig
for f in empty.sig /dev/null nowriter.sig; do
	expect_error 2 "invalid --signature '$f': empty: the file holds no signature" \
		timeout 10 "$VV" verify img --trusted-cert="$CERT" --signature=$f
done
expect_error 2 "invalid --trusted-cert 'text.sig': not an X.509 certificate" \
	"$VV" verify img --trusted-cert=text.sig
expect_error 2 "invalid --trusted-cert '$KEY': not an X.509 certificate" \
	"$VV" verify img --trusted-cert="$KEY"
cat pki/trusted.pem pki/other.pem >two.pem
expect_error 2 "invalid --trusted-cert 'two.pem': holds more than one certificate" \
	"$VV" verify img --trusted-cert=two.pem
expect_error 2 "the --signature file can't be checked: no --trusted-cert given" \
	"$VV" verify img --signature=good.sig
expect_error 1 "'img': unsigned, and --require-signature was given" \
	"$VV" verify img --require-signature --trusted-cert="$CERT"
"$VV" verify img --trusted-cert="$CERT" --signature=good.sig >"$WORK/out" ||
	fail "good signature refused"
# --digest and a signature together: both must hold.
digest=$(cut -d' ' -f1 "$WORK/out")
zero=sha256:$(printf '0%.0s' $(seq 64))
expect_error 1 "file digest $digest does not match the expected $zero" \
	"$VV" verify img --trusted-cert="$CERT" --signature=good.sig --digest="$zero"
expect_error 1 "the --signature file is refused: does not verify" \
	"$VV" verify img --trusted-cert="$CERT" --signature=same-id.sig --digest="$digest"

# Signing mistakes.
expect_error 2 "no --key given" "$VV" sign img --out=x.sig
expect_error 2 "nowhere to put the signature" "$VV" sign img --key="$KEY"
expect_error 2 "--key given twice" "$VV" sign img --key="$KEY" --key="$KEY" --out=x.sig
expect_error 1 "can't open 'missing.pem' for reading: No such file" \
	"$VV" sign img --key=missing.pem --out=x.sig
mkdir -p keydir
expect_error 1 "can't read 'keydir': it is a directory: give a PEM file" \
	"$VV" sign img --key=keydir --out=x.sig
expect_error 1 "'$CERT' is not a PEM private key" \
	"$VV" sign img --key="$CERT" --out=x.sig
expect_error 1 "'$KEY' is not a PEM X.509 certificate" \
	"$VV" sign img --key="$KEY" --cert="$KEY" --out=x.sig
expect_error 1 "'$KEY' is not the private key of the certificate 'pki/other.pem'" \
	"$VV" sign img --key="$KEY" --cert=pki/other.pem --out=x.sig
expect_error 1 "'data' is not a vublk image" \
	"$VV" sign data --key="$KEY" --out=x.sig
[ ! -e x.sig ] || fail "a failed sign wrote x.sig"
echo "sign: all checks passed"
