#!/usr/bin/env python3
"""bundle.py: look into the Gradescope bundle (make autograder LAB=NN writes
autograder-labNN.zip), for tests/autograder.

  bundle.py layout ZIP COMMIT   "ok: NAME, NAME, ..." (every file of the zip,
                                sorted) when setup.sh, run_autograder (both
                                executable), the Dockerfile (FROM debian:12,
                                or ARG BASE=debian:12 and FROM ${BASE}),
                                swaplab.bundle and swaplab-autograder.conf
                                (LAB=01, KIT_COMMIT=COMMIT) are at its root;
                                else what is wrong, "; "-separated
  bundle.py conf ZIP            swaplab-autograder.conf, as the zip holds it
  bundle.py unzip ZIP DIR       unpack ZIP into DIR as unzip would, with the
                                files' modes (the kit does not need unzip)

Exit 0; a missing or broken zip ends in Python's traceback (exit 1).
Standard library only.
"""
import os
import sys
import zipfile

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)

ROOT_FILES = ('setup.sh', 'run_autograder', 'Dockerfile', 'swaplab.bundle', 'swaplab-autograder.conf')
EXECUTABLE = ('setup.sh', 'run_autograder')


def layout(path, commit):
    z = zipfile.ZipFile(path)
    names = {i.filename: i.external_attr >> 16 for i in z.infolist()}
    bad = []
    for n in ROOT_FILES:
        if n not in names:
            bad.append(f'no {n} at the root')
    for n in EXECUTABLE:
        if names.get(n, 0) & 0o111 != 0o111:
            bad.append(f'{n} is not executable')
    df = b'\n' + z.read('Dockerfile')
    if b'\nFROM debian:12\n' not in df and not (b'\nARG BASE=debian:12\n' in df and b'\nFROM ${BASE}\n' in df):
        bad.append('the Dockerfile is not FROM debian:12 (or ARG BASE=debian:12, FROM ${BASE})')
    conf = z.read('swaplab-autograder.conf').decode()
    for want in ('LAB=01\n', f'KIT_COMMIT={commit}\n'):
        if want not in conf:
            bad.append(f'the conf lacks {want.strip()}')
    print('; '.join(bad) or 'ok: ' + ', '.join(sorted(names)))


def conf(path):
    print(zipfile.ZipFile(path).read('swaplab-autograder.conf').decode())


def unzip(path, dest):
    with zipfile.ZipFile(path) as z:
        for i in z.infolist():
            p = z.extract(i, dest)
            if i.external_attr >> 16:
                os.chmod(p, (i.external_attr >> 16) & 0o7777)


def main(argv):
    return cli.dispatch('bundle.py', __doc__, {'layout': (layout, ['zip', 'commit']), 'conf': (conf, ['zip']),
                                               'unzip': (unzip, ['zip', 'dir'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
