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

Standard library only; imports nothing of the kit, so no byte code is
written beside it.
"""
import importlib
import os
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


def main(argv):
    return cli.dispatch('static.py', __doc__, {'files': (files, ['dir']), 'compile': (compile_all, ['*file']),
                                               'import': (import_module, ['dir', 'module'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
