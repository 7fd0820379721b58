#!/usr/bin/env python3
"""refs.py: what scripts/author/check-refs computes, for tests/handout-refs.

  refs.py tags CHECK_REFS KIT
      the work-repository tags that CHECK_REFS (the path of
      scripts/author/check-refs, loaded as a module) expects for the kit at KIT,
      sorted, on one line, space-separated: what make setup tags.

A check-refs that fails to load or to compute ends in Python's traceback
(exit 1).  Standard library only.
"""
import argparse
import sys
from importlib.machinery import SourceFileLoader


def tags(check_refs, kit):
    cr = SourceFileLoader('check_refs', check_refs).load_module()
    print(' '.join(sorted(cr.expected_refs(kit)['tags'])))


def main(argv):
    p = argparse.ArgumentParser(prog='refs.py', description=__doc__.split('\n\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('tags')
    s.add_argument('check_refs')
    s.add_argument('kit')
    a = p.parse_args(argv)
    tags(a.check_refs, a.kit)


if __name__ == '__main__':
    main(sys.argv[1:])
