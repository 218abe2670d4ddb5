#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
check_install.py BUILD_DIR VERSION man|no-man - what `meson install`
installs, and nothing else.

Runs `meson install --destdir` of BUILD_DIR into a new directory and
compares the files found there with the list below, in the directories
the build was configured with (--prefix, --bindir, --sbindir, --mandir,
--datadir): every file present, none more (no test program, fuzzer or
script), the binaries runnable with the version of the project, the
completion's links pointing at the script, and each man page a roff page
of its name and section.  debian/ packages exactly this tree.

A new installed file (a systemd unit, a udev rule) is added to EXPECTED.
"""
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
]
MAN_PAGES = [
    ('mandir', 'man8/vublk.8', 'man'),
    ('mandir', 'man1/vublk-verity.1', 'man'),
    ('mandir', 'man1/vublk-bench.1', 'man'),
    ('mandir', 'man5/vublktab.5', 'man'),
]


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
    elif kind.startswith('link:'):
        target = kind[len('link:'):]
        if not os.path.islink(path) or os.readlink(path) != target:
            errors.append(f'{path} is not a link to {target}')
        elif not os.path.isfile(path):
            errors.append(f'{path} -> {target}: no such file')
    elif kind == 'man':
        name, section = os.path.basename(path).rsplit('.', 1)
        with open(path, encoding='utf-8') as f:
            th = [line.split() for line in f if line.startswith('.TH ')]
        if not th or [w.strip('"') for w in th[0][1:3]] != [name, section]:
            errors.append(f'{path}: no ".TH {name} {section}" line')
    elif not os.path.isfile(path) or os.path.islink(path):
        errors.append(f'{path} is not a regular file')
    return errors


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ('man', 'no-man'):
        sys.exit(__doc__)
    build, version, man = sys.argv[1:]
    opts = build_options(build)
    expected = {}
    for option, rel, kind in EXPECTED + (MAN_PAGES if man == 'man' else []):
        path = os.path.join(opts['prefix'], opts[option], rel)
        expected[os.path.normpath(path)] = kind

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
        tree = installed_tree(destdir)
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
        print(f'prefix {opts["prefix"]}: {len(tree)} files installed, '
              f'{len(errors)} errors')
        return 1 if errors else 0
    finally:
        shutil.rmtree(destdir)


if __name__ == '__main__':
    sys.exit(main())
