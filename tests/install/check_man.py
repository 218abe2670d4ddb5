#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
check_man.py - a man page (man/*.scd) against its program's help, and the
bash completion against the man page, so that none of the three drifts
from the others (issue 18: "--help and the man pages cannot drift apart").

  check_man.py options PAGE.scd PROGRAM
  check_man.py completion PAGE.scd PROGRAM COMPLETION_SCRIPT

An option is a word -x or --long-name.  Help texts and pages are read by
the same two rules:
  - a synopsis line gives every option on it.  Help: a line with the
    program's name as a word, and the lines after it that begin with "[".
    Page: a line that begins with the program's name in bold, up to a
    blank or indented line;
  - a definition line gives the options of its term.  Help: an indented
    line that begins with an option, up to its first two spaces
    ("  -n, --number ID    device id").  Page: a line that begins with a
    bold option ("*-n*, *--number* _ID_").
In a page, a comment "; help: ARGS" under a heading ties that heading's
section, its subsections included, to the help that `PROGRAM ARGS` prints.

options: each tied section has exactly the options of its help; no option
is defined outside a tied section; the synopsis names no option that no
help has; every help that a help text points to ("see 'PROG CMD --help'",
a list of targets for `PROG TYPE --help`) is tied to a section.

completion: with the real completion function (completion/vublk.bash),
the words offered after "PROG " are the page's subsections of COMMANDS or
MODES; after "PROG SUB -" the options of SUB's subsection (with a target's
options after "vublk add -t TYPE", and the targets after "-t"); the values
after "--opt=" those a definition "*--opt*=*a*|*b*" lists; and after
"-n" the ids of the devices in the run directory and in the kernel.
"""
import os
import re
import subprocess
import sys
import tempfile

# An option, after the start of the text or a space, "[", "|", "(" or ",".
OPTION = re.compile(r'(?<![^\s\[|(,])--?[A-Za-z][\w-]*')


def fail(msg):
    print(f'FAIL: {msg}')
    return 1


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f'{" ".join(argv)} exited with status {p.returncode}: '
                 f'{p.stderr.strip()}')
    return p.stdout


# --- help texts -------------------------------------------------------

def help_options(text, prog):
    """The options of a help text: synopsis and definition lines."""
    opts = set()
    synopsis = re.compile(r'(^|[\s(])' + re.escape(prog) + r'(\s|$)')
    in_synopsis = False
    for line in text.splitlines():
        if synopsis.search(line) or (in_synopsis and re.match(r'\s+\[', line)):
            opts |= set(OPTION.findall(line))
            in_synopsis = True
            continue
        in_synopsis = False
        m = re.match(r'\s+(-.*?)(\s\s|$)', line)
        if m:
            opts |= set(OPTION.findall(m.group(1)))
    return opts


def help_pointers(text, prog):
    """The helps a help text points to, as argument strings."""
    args = set()
    for m in re.finditer(re.escape(prog) + r'\s+((?:[a-z][\w-]*\s+)*)--help',
                         text):
        args.add((m.group(1) + '--help').strip())
    # "targets:" followed by "  NAME   what it is" lines: PROG NAME --help.
    m = re.search(r'^targets:\n((?:  \S.*\n)+)', text, re.M)
    if m:
        for line in m.group(1).splitlines():
            args.add(line.split()[0] + ' --help')
    return args


# --- pages ------------------------------------------------------------

def strip_markup(line):
    return line.replace('\\', '').replace('*', '').replace('_', ' ')


class Page:
    """An scdoc page: its sections, with their options and help ties."""

    def __init__(self, path, prog):
        self.path = path
        self.prog = prog
        # One entry per heading: level, title, parent index, lines.
        self.sections = [{'level': 0, 'title': '', 'parent': None,
                          'lines': []}]
        stack = [0]
        literal = False
        with open(path, encoding='utf-8') as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip('\n')
                if line.lstrip('\t') == '```':
                    literal = not literal
                m = None if literal else re.match(r'(#+) (.*)', line)
                if m:
                    level = len(m.group(1))
                    while self.sections[stack[-1]]['level'] >= level:
                        stack.pop()
                    self.sections.append({'level': level,
                                          'title': m.group(2).strip(),
                                          'parent': stack[-1], 'lines': []})
                    stack.append(len(self.sections) - 1)
                    continue
                self.sections[stack[-1]]['lines'].append((number, line))

    def own_options(self, index):
        """(options, [(line number, text)] of definition lines) of one
        section, without its subsections."""
        opts, defs = set(), []
        bold_prog = re.compile(r'\*' + re.escape(self.prog) + r'[\s*]')
        in_synopsis = False
        for number, line in self.sections[index]['lines']:
            if bold_prog.match(line):
                in_synopsis = True
            elif line == '' or line.startswith('\t'):
                in_synopsis = False
            if in_synopsis:
                opts |= set(OPTION.findall(strip_markup(line)))
            elif line.startswith('*-'):
                found = set(OPTION.findall(strip_markup(line)))
                opts |= found
                defs.append((number, line))
        return opts, defs

    def descendants(self, index):
        out = [index]
        for i, s in enumerate(self.sections):
            if s['parent'] in out:
                out.append(i)
        return out

    def options(self, index):
        """The options of a section and its subsections."""
        opts = set()
        for i in self.descendants(index):
            opts |= self.own_options(i)[0]
        return opts

    def ties(self):
        """{section index: help arguments} from "; help: ARGS"."""
        ties = {}
        for i, s in enumerate(self.sections):
            for _, line in s['lines']:
                m = re.match(r'; help: (.*)', line)
                if m:
                    ties[i] = m.group(1).split()
        return ties

    def find(self, title, parent_title=None):
        for i, s in enumerate(self.sections):
            if s['title'] == title and (
                    parent_title is None or
                    self.sections[s['parent']]['title'] == parent_title):
                return i
        return None

    def subsections(self, title):
        """The titles of the subsections of the heading TITLE."""
        parent = self.find(title)
        return [s['title'] for s in self.sections
                if parent is not None and s['parent'] == parent]


def check_options(page_path, program):
    prog = os.path.basename(program)
    page = Page(page_path, prog)
    ties = page.ties()
    if not ties:
        return fail(f'{page_path}: no "; help: ARGS" line ties a section to '
                    f'a help of {prog}')
    failures = 0
    helps = {}
    tied = set()
    for index, args in ties.items():
        text = run([program] + args)
        helps[' '.join(args)] = text
        title = page.sections[index]['title']
        want = help_options(text, prog)
        have = page.options(index)
        for o in sorted(want - have):
            failures += fail(f'{prog} {" ".join(args)} has {o}; the section '
                             f'"{title}" of {page_path} does not')
        for o in sorted(have - want):
            failures += fail(f'the section "{title}" of {page_path} has {o}; '
                             f'{prog} {" ".join(args)} does not')
        print(f'{prog} {" ".join(args)}: {len(want)} options, as the '
              f'section "{title}": {" ".join(sorted(want))}')
        tied |= set(page.descendants(index))
    every = set().union(*(help_options(t, prog) for t in helps.values()))
    for i in range(len(page.sections)):
        opts, defs = page.own_options(i)
        if i not in tied:
            for number, line in defs:
                failures += fail(f'{page_path}:{number}: "{line}" defines an '
                                 f'option in a section that no "; help:" '
                                 f'ties to a help')
        for o in sorted(opts - every if i not in tied else ()):
            failures += fail(f'{page_path}: section '
                             f'"{page.sections[i]["title"]}" names {o}, '
                             f'which no help of {prog} has')
    for text in list(helps.values()):
        for args in sorted(help_pointers(text, prog) - set(helps)):
            failures += fail(f'{prog} points to `{prog} {args}`, which no '
                             f'"; help: {args}" in {page_path} ties to a '
                             f'section')
    return failures


# --- completion -------------------------------------------------------

def complete(script, program, words, env):
    """What the completion function offers for PROGRAM WORDS... (the last
    word being completed), the words split as bash splits them."""
    prog = os.path.basename(program)
    shell = f'''
        source "$1" || exit 1
        compopt() {{ :; }}    # outside a completion, bash refuses it
        func=$(complete -p "$2" | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
        [ -n "$func" ] || {{ echo "no completion for $2" >&2; exit 1; }}
        shift 2
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        "$func"
        printf '%s\\n' "${{COMPREPLY[@]}}"
    '''
    p = subprocess.run(['bash', '-c', shell, 'complete', script, prog,
                        program] + words, capture_output=True, text=True,
                       env=env)
    if p.returncode != 0:
        sys.exit(f'completing {prog} {" ".join(words)}: status '
                 f'{p.returncode}: {p.stderr.strip()}')
    return set(w for w in p.stdout.split('\n') if w)


def split_eq(word):
    """bash splits "--opt=val" at "=" (COMP_WORDBREAKS)."""
    opt, _, val = word.partition('=')
    return [opt, '=', val] if val else [opt, '=']


def literal_values(page, index):
    """{--opt: {values}} of definitions "*--opt*=*a*|*b*" in a section."""
    out = {}
    for _, line in page.own_options(index)[1]:
        for m in re.finditer(r'\*(--[\w-]+)\*=((?:\*[\w-]+\*\|?)+)', line):
            out[m.group(1)] = set(re.findall(r'\*([\w-]+)\*', m.group(2)))
    return out


def check_completion(page_path, program, script):
    prog = os.path.basename(program)
    page = Page(page_path, prog)
    failures = 0
    env = dict(os.environ)
    run_dir = tempfile.mkdtemp(prefix='vublk-completion.')
    env['VUBLK_RUN_DIR'] = run_dir
    for f in ('3.json', '3.stats.json', '3.log', '3.ctl', '12.json',
              'README'):
        open(os.path.join(run_dir, f), 'w').close()

    def expect(words, want, what):
        nonlocal failures
        got = complete(script, program, words, env)
        shown = f'{prog} {" ".join(words)}'
        if got != want:
            failures += fail(f'completing "{shown}": offered '
                             f'{sorted(got)}, {what} has {sorted(want)}')
        else:
            print(f'"{shown}": {" ".join(sorted(got))}')

    subs_heading = 'COMMANDS' if page.find('COMMANDS') is not None else 'MODES'
    subs = page.subsections(subs_heading)
    expect([''], set(subs), f'{page_path} ({subs_heading})')

    def opts_of(index):
        return page.options(index)

    def offered(words):
        return set(w.rstrip('=')
                   for w in complete(script, program, words, env))

    def expect_options(words, want, what):
        nonlocal failures
        got = offered(words)
        shown = f'{prog} {" ".join(words)}'
        if got != want:
            failures += fail(f'completing "{shown}": offered '
                             f'{sorted(got - want)} that {what} has not, '
                             f'and not {sorted(want - got)} that it has')
        else:
            print(f'"{shown}": {len(got)} options, as {what}')

    def expect_values(before, index):
        for opt, values in literal_values(page, index).items():
            for cur in (opt + '=', opt + '=' + sorted(values)[0][0]):
                want = set(v for v in values
                           if v.startswith(cur.partition('=')[2]))
                expect(before + split_eq(cur), want,
                       f'{page_path} ({opt}={"|".join(sorted(values))})')

    for sub in subs:
        if sub == 'help':
            continue
        index = page.find(sub, subs_heading)
        expect_options([sub, '-'], opts_of(index),
                       f'the section "{sub}" of {page_path}')
        expect_values([sub], index)
        if '--number' in opts_of(index):
            ids = set(['3', '12'])
            sysfs = '/sys/class/ublk-char'
            if os.path.isdir(sysfs):
                ids |= set(d[len('ublkc'):] for d in os.listdir(sysfs))
            expect([sub, '-n', ''], ids,
                   f'{run_dir} and {sysfs} (the device ids)')

    targets = page.subsections('TARGETS')
    if targets:
        add = page.find('add', subs_heading)
        expect(['add', '-t', ''], set(targets), f'{page_path} (TARGETS)')
        for t in targets:
            index = page.find(t, 'TARGETS')
            expect_options(['add', '-t', t, '-'],
                           opts_of(add) | opts_of(index),
                           f'the sections "add" and "{t}" of {page_path}')
            expect_values(['add', '-t', t], index)
    for f in os.listdir(run_dir):
        os.unlink(os.path.join(run_dir, f))
    os.rmdir(run_dir)
    return failures


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'options':
        failures = check_options(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == 'completion':
        failures = check_completion(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
