"""What the tests of forked work (``builder.parallel``) check after each run: no child left behind."""

from __future__ import annotations

import os


def no_child_left() -> bool:
    """True when this process has no child (running or zombie) left to reap."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
