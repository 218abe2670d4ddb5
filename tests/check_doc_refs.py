#!/usr/bin/env python3
"""Every test a document names exists: check_doc_refs.py SRC_DIR DOC...

docs/SECURITY.md names, for each claim, the tests that show it; this keeps
those names true as tests are renamed or removed.  Checked:
  - `path/to/file` (any backquoted path under tests/, fuzz/, daemon/,
    lib/, tools/): the file exists;
  - `file.c` (`test_fn`, `other_fn`): each function is defined in that
    file (found under tests/);
  - kernel test `group/NN-name`: tests/kernel-tests/group/NN-name.sh;
  - meson test names `daemon-...`, `verity-...`, `fuzz_...`: a test() of
    that name in a meson.build, or a fuzz/ target.
Prints each dangling name on one line; exits 1 if there is any.
"""
import glob
import os
import re
import sys


def main():
    src = sys.argv[1]
    meson = "".join(open(p).read() for p in
                    glob.glob(os.path.join(src, "**", "meson.build"),
                              recursive=True))
    bad = 0

    def report(doc, what):
        nonlocal bad
        print(f"{doc}: {what}")
        bad += 1

    for doc in sys.argv[2:]:
        text = open(doc).read()
        for path in set(re.findall(r"`((?:tests|fuzz|daemon|lib|tools)/[\w./-]+)`", text)):
            if not os.path.exists(os.path.join(src, path)):
                report(doc, f"no such file: {path}")
        for name, fns in re.findall(r"`(\w+\.c)` \(((?:`\w+`(?:, )?(?: and )?)+)\)", text):
            hits = glob.glob(os.path.join(src, "tests", "**", name), recursive=True)
            if not hits:
                report(doc, f"no test file {name}")
                continue
            body = "".join(open(h).read() for h in hits)
            for fn in re.findall(r"`(\w+)`", fns):
                if not re.search(r"\b%s\s*\(" % re.escape(fn), body):
                    report(doc, f"{name} defines no {fn}()")
        for test in set(re.findall(r"kernel tests? `([\w-]+/[\w-]+)`", text)) | \
                set(re.findall(r"kernel tests `[\w-]+/[\w-]+` and `([\w-]+/[\w-]+)`", text)):
            if not os.path.exists(os.path.join(src, "tests/kernel-tests", test + ".sh")):
                report(doc, f"no kernel test {test}")
        for test in set(re.findall(r"`((?:daemon|verity|pmem|merkle)-[\w-]+)`", text)):
            if f"'{test}'" not in meson:
                report(doc, f"no meson test {test}")
        for target in set(re.findall(r"`(fuzz_\w+)`", text)):
            if not os.path.exists(os.path.join(src, "fuzz", target + ".c")):
                report(doc, f"no fuzz target {target}")
    print(f"{bad} dangling references")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
