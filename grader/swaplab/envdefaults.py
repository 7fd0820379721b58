"""The environment the kit's bash plumbing expects: the paths
scripts/lib.sh defines and a fixed git identity and date.  Every Python
entry point that runs a script of the kit (grader/grade, grader/run-group)
sets it first (env_defaults); code that needs one of the paths where no
entry point set them asks defaults().  The defaults are written once, in
scripts/lib.sh (its env_defaults), and read from there: lib.sh cannot
read them from Python, since scripts/deps, which installs Python,
sources it."""
from __future__ import annotations

import os
import subprocess
from typing import Dict

from .labs import ROOT

LIB_SH = os.path.join(ROOT, 'scripts', 'lib.sh')


def defaults() -> Dict[str, str]:
    """What scripts/lib.sh exports, as a script of the kit run from here
    sees it: its paths (those the environment names kept, as lib.sh keeps
    them) and the fixed git identity and dates."""
    p = subprocess.run(['bash', '-c', '. "$1" && env_defaults', 'env_defaults', LIB_SH],
                       capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(f'{LIB_SH}: env_defaults failed (exit {p.returncode}): '
                           f'{p.stderr.decode(errors="replace").strip()}')
    out = {}
    for item in p.stdout.split(b'\0'):
        if item:
            k, _, v = os.fsdecode(item).partition('=')
            out[k] = v
    return out


def env_defaults() -> None:
    """Set what scripts/lib.sh exports, for the bash plumbing we call."""
    os.environ.update(defaults())
