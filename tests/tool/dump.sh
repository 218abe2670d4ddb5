#!/bin/bash
# `vublk-verity dump`: --json parses, and every field agrees with the
# descriptor and tree that fsverity-utils computes for the same data (the
# descriptor is decoded independently here, from the kernel's struct
# fsverity_descriptor layout); the text form shows the same values.
# shellcheck source=tests/tool/lib.sh
. "$(dirname "$0")/lib.sh"

# An awkward name: JSON must escape it.
IMG='im"a\ge'
OPTS=(--hash-alg=sha512 --block-size=1024 --salt=0badc0ffee)
gen_data 300000 5 data
cp data "$IMG"
"$VV" format "$IMG" "${OPTS[@]}" >/dev/null
fsverity digest data "${OPTS[@]}" --out-merkle-tree=fs.tree \
	--out-descriptor=fs.desc >fs.line
"$VV" dump --json "$IMG" >dump.json
"$PYTHON" -m json.tool dump.json >/dev/null || fail "dump --json does not parse"

"$PYTHON" - dump.json fs.desc fs.tree fs.line "$IMG" <<'EOF' || fail "dump --json disagrees with fsverity"
import json, os, struct, sys

d = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], "rb").read()
tree = open(sys.argv[3], "rb").read()
line = open(sys.argv[4]).read().split()[0]
img = sys.argv[5]

def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: dump says {got!r}, expected {want!r}")

# struct fsverity_descriptor: u8 version, hash_algorithm, log_blocksize,
# salt_size; le32 sig_size; le64 data_size; root_hash[64]; salt[32].
ver, alg, log_bs, salt_size, sig_size, data_size = struct.unpack_from("<BBBBIQ", raw)
root = raw[16:80]
salt = raw[80:80 + salt_size]
digest_size = {1: 32, 2: 64}[alg]
desc = d["descriptor"]
check("image", d["image"], img)
check("version", desc["version"], ver)
check("hash_algorithm_number", desc["hash_algorithm_number"], alg)
check("hash_algorithm", desc["hash_algorithm"], {1: "sha256", 2: "sha512"}[alg])
check("block_size", desc["block_size"], 1 << log_bs)
check("salt", desc["salt"], salt.hex())
check("sig_size", desc["sig_size"], sig_size)
check("data_size", desc["data_size"], data_size)
check("root_hash", desc["root_hash"], root[:digest_size].hex())
check("file_digest", desc["file_digest"], line)

loc = d["location"]
image_size = os.path.getsize(img)
check("location.data_size", loc["data_size"], data_size)
check("location.tree_pos", loc["tree_pos"], (data_size + 65535) // 65536 * 65536)
check("location.tree_size", loc["tree_size"], len(tree))
check("location.desc_pos", loc["desc_pos"], loc["tree_pos"] + len(tree))
check("location.desc_size", loc["desc_size"], 256)
check("location.image_size", loc["image_size"], image_size)
check("location.trailer_pos", loc["trailer_pos"], image_size - 64)

# Levels: top level first on disk, contiguous, each level's bytes in the
# image equal to the same level in fsverity's tree.
t = d["tree"]
check("digest_size", t["digest_size"], digest_size)
check("hashes_per_block", t["hashes_per_block"], (1 << log_bs) // digest_size)
check("data_blocks", t["data_blocks"], -(-data_size // (1 << log_bs)))
levels = t["levels"]
check("num_levels", len(levels), t["num_levels"])
if len(levels) < 2:
    sys.exit("expected a multi-level tree")
check("top level offset", levels[-1]["offset"], loc["tree_pos"])
check("level sizes", sum(l["size"] for l in levels), len(tree))
data = open(img, "rb").read()
for i, l in enumerate(levels):
    check(f"level {i} index", l["level"], i)
    check(f"level {i} size", l["size"], l["blocks"] << log_bs)
    if i + 1 < len(levels):
        check(f"level {i} offset", l["offset"],
              levels[i + 1]["offset"] + levels[i + 1]["size"])
    start = l["offset"] - loc["tree_pos"]
    if data[l["offset"]:l["offset"] + l["size"]] != tree[start:start + l["size"]]:
        sys.exit(f"level {i}: image bytes differ from fsverity's tree")
EOF

# The text form shows the same values.
"$VV" dump "$IMG" >dump.txt
read -r root digest tree_pos < <(json_fields dump.json descriptor.root_hash \
	descriptor.file_digest location.tree_pos)
grep -qx "  root hash: *$root" dump.txt || fail "text dump: root hash"
grep -qx "  file digest: *$digest" dump.txt || fail "text dump: file digest"
grep -qx "  salt: *0badc0ffee" dump.txt || fail "text dump: salt"
grep -qE "^  level [0-9]+: 1 blocks at offset $tree_pos, 1024 bytes$" dump.txt ||
	fail "text dump: top level"
# A name that is not UTF-8 (f2fs names are any bytes): the JSON stays
# UTF-8, bytes that are not as U+FFFD, well-formed characters kept.
ODD=$(printf 'n-\xff-\xc3\xa9-\xed\xa0\x80-\xf0\x9f\x98\x80-\xc3')
cp "$IMG" "$ODD"
"$VV" dump --json "$ODD" >odd.json
"$PYTHON" - odd.json <<'EOF' || fail "dump --json of a name that is not UTF-8"
import json, sys
got = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))["image"]
want = "n-\ufffd-\u00e9-\ufffd\ufffd\ufffd-\U0001f600-\ufffd"
sys.exit(0 if got == want else f"image is {got!r}, want {want!r}")
EOF
echo "dump: JSON and text agree with fsverity's descriptor and tree"
