#!/usr/bin/env python3
"""refs.py: what scripts/author/check-refs computes, for tests/handout-refs.

  refs.py tags CHECK_REFS KIT
      the work-repository tags that CHECK_REFS (the path of
      scripts/author/check-refs, loaded as a module) expects for the kit at KIT,
      sorted, on one line, space-separated: what make setup tags.

A check-refs that fails to load or to compute ends in Python's traceback
(exit 1).  Standard library only.
"""
import sys
from importlib.machinery import SourceFileLoader

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)


def tags(check_refs, kit):
    cr = SourceFileLoader('check_refs', check_refs).load_module()
    print(' '.join(sorted(cr.expected_refs(kit)['tags'])))


def main(argv):
    return cli.dispatch('refs.py', __doc__, {'tags': (tags, ['check_refs', 'kit'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
