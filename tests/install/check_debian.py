#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
check_debian.py SOURCE_DIR BUILD_DIR VERSION - debian/ parses and agrees
with the build, in a second (the package build itself takes minutes:
tests/package/build-deb runs it, see docs/TESTING.md).

  - debian/changelog: dpkg-parsechangelog reads it; source vublk, and the
    version meson.build gives (a native package: one version);
  - debian/control: one binary package, vublk; debhelper-compat 13; its
    Build-Depends name, for each library dependency the build found
    (meson introspect), the package that owns its pkg-config file
    (dpkg -S), and scdoc, which makes the man pages;
  - debian/rules: `dh binary --no-act` accepts it (when debhelper is
    installed).
"""
import json
import os
import re
import subprocess
import sys


def output(argv, cwd=None):
    return subprocess.run(argv, check=True, capture_output=True, text=True,
                          cwd=cwd).stdout


def paragraphs(path):
    """The paragraphs of a deb822 file, as {field: value}."""
    out, cur, field = [], {}, None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip():
                if cur:
                    out.append(cur)
                cur, field = {}, None
            elif line[0] in ' \t':
                if field is None:
                    raise ValueError(f'{path}: continuation line first: '
                                     f'{line!r}')
                cur[field] += '\n' + line.strip()
            elif not line.startswith('#'):
                field, _, value = line.partition(':')
                cur[field] = value.strip()
    if cur:
        out.append(cur)
    return out


def relation_names(value):
    """Package names of a relation field ("a (>= 1), b | c,")."""
    names = set()
    for alt in re.split(r'[,|]', value):
        m = re.match(r'\s*([a-z0-9][a-z0-9+.-]+)', alt)
        if m:
            names.add(m.group(1))
    return names


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, build, version = sys.argv[1:]
    debian = os.path.join(src, 'debian')
    errors = []

    log = output(['dpkg-parsechangelog', '-l',
                  os.path.join(debian, 'changelog')])
    fields = {k: v.strip() for k, _, v in
              (line.partition(':') for line in log.splitlines()
               if line and line[0] != ' ')}
    if fields.get('Source') != 'vublk':
        errors.append(f'debian/changelog: source {fields.get("Source")!r}, '
                      f'not vublk')
    if fields.get('Version') != version:
        errors.append(f'debian/changelog: version {fields.get("Version")}, '
                      f'meson.build says {version}: add a changelog entry '
                      f'(dch -v {version})')

    source, *binaries = paragraphs(os.path.join(debian, 'control'))
    if [b.get('Package') for b in binaries] != ['vublk']:
        errors.append('debian/control: not exactly one binary package, '
                      'vublk (debian/rules puts all of meson install in it)')
    build_deps = relation_names(source.get('Build-Depends', ''))
    if not re.search(r'debhelper-compat \(= 13\)',
                     source.get('Build-Depends', '')):
        errors.append('debian/control: no Build-Depends on '
                      'debhelper-compat (= 13)')
    needed = {'scdoc': 'the man pages (man/meson.build)'}
    deps = json.loads(output(['meson', 'introspect', '--dependencies',
                              build]))
    for dep in deps:
        if dep['name'] == 'threads':
            continue		# the compiler's
        pc = output(['pkg-config', '--path', dep['name']]).strip()
        owner = output(['dpkg', '-S', os.path.realpath(pc)]).split(':')[0]
        needed[owner] = f'{dep["name"]} ({pc})'
    for package, why in sorted(needed.items()):
        if package not in build_deps:
            errors.append(f'debian/control: Build-Depends lacks {package}, '
                          f'which the build needs for {why}')
        else:
            print(f'Build-Depends has {package}: {why}')

    try:
        plan = output(['dh', 'binary', '--no-act'], cwd=src)
        if 'dh_auto_install' not in plan or 'dh_builddeb' not in plan:
            errors.append(f'dh binary --no-act plans no install and no '
                          f'.deb:\n{plan}')
        else:
            print(f'dh binary --no-act: {len(plan.split())} steps')
    except FileNotFoundError:
        print('dh not found (debhelper): debian/rules not checked')
    except subprocess.CalledProcessError as e:
        errors.append(f'dh binary --no-act: {e.stderr.strip()}')

    for e in errors:
        print(f'FAIL: {e}')
    print(f'debian/: version {fields.get("Version")}, {len(errors)} errors')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
