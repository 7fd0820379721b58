#!/usr/bin/env python3
"""container.py: check the container definitions the kit ships, for
tests/container.

  container.py devcontainer FILE
      exit 0 when FILE (.devcontainer/devcontainer.json) is JSON that builds
      ../container/Containerfile with the checkout (..) as its context and
      mounts the build cache as the named volume swaplab-cache at
      /swaplab-cache; else an AssertionError (or a JSON error) naming what
      differs, exit 1.

Standard library only.
"""
import argparse
import json
import sys

CACHE_MOUNT = 'source=swaplab-cache,target=/swaplab-cache,type=volume'


def devcontainer(path):
    d = json.load(open(path))
    assert d['build']['dockerfile'] == '../container/Containerfile' and d['build']['context'] == '..', d['build']
    assert any(CACHE_MOUNT == m for m in d['mounts']), d['mounts']


def main(argv):
    p = argparse.ArgumentParser(prog='container.py', description=__doc__.split('\n\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('devcontainer').add_argument('file')
    a = p.parse_args(argv)
    devcontainer(a.file)


if __name__ == '__main__':
    main(sys.argv[1:])
