"""The command line every tool here shares (a module, not a tool): one subcommand each, its
positional arguments handed to a function in order.

  dispatch(prog, doc, {name: (function, [arg, ...])}, argv)

An argument named "*name" takes any number of words (a list).  The
function's return value is dispatch's; a tool that maps it to an exit
status says so in its own table (sys.exit inside the function)."""
import argparse


def dispatch(prog, doc, commands, argv):
    p = argparse.ArgumentParser(prog=prog, description=doc.split('\n\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    for name, (_, args) in commands.items():
        s = sub.add_parser(name)
        for a in args:
            if a.startswith('*'):
                s.add_argument(a[1:], nargs='*')
            else:
                s.add_argument(a)
    a = p.parse_args(argv)
    fn, args = commands[a.cmd]
    return fn(*[getattr(a, x.lstrip('*').replace('-', '_')) for x in args])
