"""Ending one of Verso's own child processes (the TM scan, the spelling dictionary): its pipes
closed, two seconds to finish what it is writing, then killed, and always waited for (no zombie)."""

from __future__ import annotations

import subprocess


def end_child(proc: subprocess.Popen, wait_s: float = 2.0) -> None:
    """Close ``proc``'s stdin and stdout (a child reading stdin then ends by itself), wait up to
    ``wait_s`` seconds, else kill it; returns once it has been reaped."""
    for f in (proc.stdin, proc.stdout):
        if f is None:
            continue
        try:
            f.close()
        except OSError:
            pass
    try:
        proc.wait(wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


__all__ = ["end_child"]
