#!/usr/bin/env python3
"""static.py: the kit's files and its Python, for tests/static.

  static.py files DIR           "sh PATH" for each shell script below DIR
                                (a #!/bin/bash, #!/usr/bin/env bash or
                                #!/bin/sh first line, or "# shellcheck
                                shell=": the sourced libraries), "py PATH"
                                for each Python file (*.py, or a #! line
                                naming python3); PATH relative to DIR,
                                sorted; .git, __pycache__ and DIR's own
                                work/ and out/ left out, links skipped
  static.py compile FILE...     "ok FILE" or "bad FILE: why" for each, by
                                compile(): nothing is written
  static.py import DIR MODULE   import MODULE with DIR first on sys.path
                                (this folder not on it); its error and exit
                                status are the import's
  static.py subjects DIR LIST   the commit subjects (git's %s: the first
                                paragraph) of DIR's history from HEAD:
                                "bad HASH LEN SUBJECT" for each one over 72
                                characters that LIST does not name,
                                "unneeded HASH" for each one LIST names that
                                is not, "stale HASH" for each of LIST's
                                hashes the history lacks (a full clone
                                only), then "checked N"
                                ("none WHY" alone where DIR is no git
                                checkout of its own)

Standard library only; imports nothing of the kit, so no byte code is
written beside it.
"""
import importlib
import os
import subprocess
import sys

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)

SH = (b'#!/bin/bash', b'#!/usr/bin/env bash', b'#!/bin/sh', b'# shellcheck shell=')


def files(top):
    rows = []
    for d, dirs, names in os.walk(top):
        first_level = os.path.samefile(d, top)
        dirs[:] = [x for x in dirs if x not in ('.git', '__pycache__')
                   and not (first_level and x in ('work', 'out'))]
        for f in names:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, 'rb') as fh:
                line = fh.readline(200)
            rel = os.path.relpath(p, top)
            if line.startswith(SH):
                rows.append(('sh', rel))
            elif f.endswith('.py') or (line.startswith(b'#!') and b'python3' in line):
                rows.append(('py', rel))
    for kind, rel in sorted(rows):
        print(kind, rel)


def compile_all(paths):
    for p in paths:
        try:
            with open(p, 'rb') as f:
                compile(f.read(), p, 'exec', dont_inherit=True)
            print('ok', p)
        except (SyntaxError, ValueError, OSError) as e:
            print('bad', p + ':', ' '.join(str(e).split()))


def import_module(d, module):
    # (sys.path[0] is this script's folder: DIR takes its place)
    sys.path[0] = d
    importlib.import_module(module)


SUBJECT_MAX = 72


def git(d, *args):
    return subprocess.run(['git', '-C', d, *args], capture_output=True, text=True,
                          errors='replace', check=False)


def subjects(d, listed):
    top = git(d, 'rev-parse', '--show-toplevel')
    if top.returncode != 0 or not os.path.samefile(top.stdout.strip(), d):
        print('none', 'no git checkout of its own at', d)
        return
    known = set()
    with open(listed, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].split()
            if not line:
                continue
            if len(line) != 1 or len(line[0]) != 40:
                sys.exit('%s:%d: not a 40-digit commit hash' % (listed, n))
            known.add(line[0])
    log = git(d, 'log', '--format=%H%x00%s%x00', 'HEAD')
    if log.returncode != 0:
        sys.exit('git log failed: ' + log.stderr.strip())
    seen = set()
    fields = log.stdout.split('\x00')
    for h, subj in zip(fields[0::2], fields[1::2]):
        h = h.strip()
        seen.add(h)
        if len(subj) > SUBJECT_MAX and h not in known:
            print('bad', h[:12], len(subj), subj[:100])
        elif len(subj) <= SUBJECT_MAX and h in known:
            print('unneeded', h)
    shallow = git(d, 'rev-parse', '--is-shallow-repository').stdout.strip() == 'true'
    if not shallow:
        for h in sorted(known - seen):
            print('stale', h)
    print('checked', len(seen))


def main(argv):
    return cli.dispatch('static.py', __doc__, {'files': (files, ['dir']), 'compile': (compile_all, ['*file']),
                                               'import': (import_module, ['dir', 'module']),
                                               'subjects': (subjects, ['dir', 'list'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
