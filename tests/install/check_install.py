#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
check_install.py BUILD_DIR VERSION man|no-man - what `meson install`
installs, and nothing else.
check_install.py --package ROOT VERSION - the same of a .deb unpacked in
ROOT (dpkg -x; tests/package/build-deb).

Runs `meson install --destdir` of BUILD_DIR into a new directory and
compares the files found there with the list below, in the directories
the build was configured with (--prefix, --bindir, --sbindir, --mandir,
--datadir): every file present, none more (no test program, fuzzer or
script), the binaries runnable with the version of the project, the
completion's links pointing at the script, and each man page a roff page
of its name and section.  A package has the same files under /usr, its
man pages compressed (dh_compress), and its copyright and changelog.

A new installed file is added to EXPECTED.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

# (build option naming the directory, path below it, kind)
EXPECTED = [
    ('sbindir', 'vublk', 'program'),
    ('bindir', 'vublk-verity', 'program'),
    ('bindir', 'vublk-bench', 'program'),
    ('datadir', 'bash-completion/completions/vublk', 'file'),
    ('datadir', 'bash-completion/completions/vublk-verity', 'link:vublk'),
    ('datadir', 'bash-completion/completions/vublk-bench', 'link:vublk'),
    # systemd/: where Debian's systemd and udev look, below the prefix
    # (no build option names prefix/lib).
    ('prefix', 'lib/systemd/system-generators/vublk-generator', 'script'),
    ('prefix', 'lib/systemd/system/vublk@.service', 'file'),
    ('prefix', 'lib/udev/rules.d/60-vublk.rules', 'file'),
]
MAN_PAGES = [
    ('mandir', 'man8/vublk.8', 'man'),
    ('mandir', 'man1/vublk-verity.1', 'man'),
    ('mandir', 'man1/vublk-bench.1', 'man'),
    ('mandir', 'man5/vublktab.5', 'man'),
]
# What a Debian package adds, and where it puts the build's directories.
PACKAGE_DOCS = [
    ('datadir', 'doc/vublk/changelog.gz', 'file'),
    ('datadir', 'doc/vublk/copyright', 'file'),
]
PACKAGE_DIRS = {'prefix': '/usr', 'bindir': 'bin', 'sbindir': 'sbin',
                'mandir': 'share/man', 'datadir': 'share'}


def build_options(build):
    out = subprocess.run(['meson', 'introspect', '--buildoptions', build],
                         check=True, capture_output=True, text=True).stdout
    return {o['name']: o['value'] for o in json.loads(out)}


def installed_tree(root):
    """{absolute install path: path in root} of every file and link."""
    tree = {}
    for top, dirs, files in os.walk(root):
        for name in files + [d for d in dirs
                             if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            tree['/' + os.path.relpath(path, root)] = path
    return tree


def check_one(kind, path, version):
    """A list of what is wrong with one installed file."""
    errors = []
    if kind == 'program':
        if not os.access(path, os.X_OK) or os.path.islink(path):
            return [f'{path} is not an executable file']
        name = os.path.basename(path)
        args = ['--help'] if name == 'vublk-bench' else ['--version']
        p = subprocess.run([path] + args, capture_output=True, text=True)
        if p.returncode != 0:
            errors.append(f'{path} {args[0]}: exit status {p.returncode}: '
                          f'{p.stderr.strip()}')
        elif args == ['--version'] and p.stdout.split() != [name, version]:
            errors.append(f'{path} --version prints {p.stdout.strip()!r}, '
                          f'not "{name} {version}" (meson.build\'s version)')
    elif kind == 'script':
        if not os.access(path, os.X_OK) or os.path.islink(path):
            errors.append(f'{path} is not an executable file')
    elif kind.startswith('link:'):
        target = kind[len('link:'):]
        if not os.path.islink(path) or os.readlink(path) != target:
            errors.append(f'{path} is not a link to {target}')
        elif not os.path.isfile(path):
            errors.append(f'{path} -> {target}: no such file')
    elif kind == 'man':
        name, section = os.path.basename(path).removesuffix('.gz').rsplit(
            '.', 1)
        opener = gzip.open if path.endswith('.gz') else open
        with opener(path, 'rt', encoding='utf-8') as f:
            th = [line.split() for line in f if line.startswith('.TH ')]
        if not th or [w.strip('"') for w in th[0][1:3]] != [name, section]:
            errors.append(f'{path}: no ".TH {name} {section}" line')
    elif not os.path.isfile(path) or os.path.islink(path):
        errors.append(f'{path} is not a regular file')
    return errors


def expected_tree(dirs, entries, compressed_man):
    """{absolute install path: kind} of the entries, in dirs."""
    expected = {}
    for option, rel, kind in entries:
        if kind == 'man' and compressed_man:
            rel += '.gz'
        path = os.path.join(dirs['prefix'], dirs[option], rel)
        expected[os.path.normpath(path)] = kind
    return expected


def check_tree(root, expected, version):
    """Compare the tree in root with expected; the number of errors."""
    tree = installed_tree(root)
    errors = []
    for path in sorted(set(expected) - set(tree)):
        errors.append(f'{path} is not installed')
    for path in sorted(set(tree) - set(expected)):
        errors.append(f'{path} is installed, and is not in the list of '
                      f'tests/install/check_install.py')
    for path in sorted(set(tree) & set(expected)):
        errors += check_one(expected[path], tree[path], version)
    for path in sorted(tree):
        print(f'installed: {path} ({expected.get(path, "unexpected")})')
    for e in errors:
        print(f'FAIL: {e}')
    print(f'{len(tree)} files installed, {len(errors)} errors')
    return len(errors)


def check_meson_install(build, version, man):
    opts = build_options(build)
    print(f'meson install of {build}, prefix {opts["prefix"]}')
    expected = expected_tree(opts, EXPECTED + (MAN_PAGES if man else []),
                             False)
    destdir = tempfile.mkdtemp(prefix='vublk-install.')
    try:
        p = subprocess.run(['meson', 'install', '-C', build, '--no-rebuild',
                            '--quiet', '--destdir', destdir],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print(f'FAIL: meson install --destdir {destdir} exited with '
                  f'status {p.returncode}')
            return 1
        return check_tree(destdir, expected, version)
    finally:
        shutil.rmtree(destdir)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == '--package':
        expected = expected_tree(PACKAGE_DIRS,
                                 EXPECTED + MAN_PAGES + PACKAGE_DOCS, True)
        errors = check_tree(sys.argv[2], expected, sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[3] in ('man', 'no-man'):
        errors = check_meson_install(sys.argv[1], sys.argv[2],
                                     sys.argv[3] == 'man')
    else:
        sys.exit(__doc__)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
