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
import json
import sys

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)

CACHE_MOUNT = 'source=swaplab-cache,target=/swaplab-cache,type=volume'


def devcontainer(path):
    d = json.load(open(path))
    assert d['build']['dockerfile'] == '../container/Containerfile' and d['build']['context'] == '..', d['build']
    assert any(CACHE_MOUNT == m for m in d['mounts']), d['mounts']


def main(argv):
    return cli.dispatch('container.py', __doc__, {'devcontainer': (devcontainer, ['file'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
