"""The environment the kit's bash plumbing expects: the paths
scripts/lib.sh defines and a fixed git identity and date.  Every Python
entry point that runs a script of the kit (grader/grade, grader/run-group)
sets it first."""
from __future__ import annotations

import os

from .checks import ROOT


def env_defaults() -> None:
    """The paths scripts/lib.sh defines, for the bash plumbing we call."""
    os.environ.setdefault('SWAPLAB_ROOT', ROOT)
    os.environ.setdefault('SWAPLAB_WORK', os.path.join(os.environ['SWAPLAB_ROOT'], 'work'))
    os.environ.setdefault('SWAPLAB_CACHE', os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'swaplab'))
    os.environ.setdefault('LINUX_REPO', os.path.join(os.environ['SWAPLAB_WORK'], 'linux'))
    for k, v in (('GIT_AUTHOR_NAME', 'swaplab'), ('GIT_AUTHOR_EMAIL', 'swaplab@localhost'),
                 ('GIT_COMMITTER_NAME', 'swaplab'), ('GIT_COMMITTER_EMAIL', 'swaplab@localhost'),
                 ('GIT_AUTHOR_DATE', '2016-10-20T16:31:39Z'),
                 ('GIT_COMMITTER_DATE', '2016-10-20T16:31:39Z')):
        os.environ[k] = v
