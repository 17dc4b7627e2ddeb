"""PYTHONPATH=packaging/probe runs the start-up probe in a venv's `verso` (see ../rthook_startup_probe.py)."""
import os

if os.environ.get("VERSO_STARTUP_PROBE"):
    _p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rthook_startup_probe.py")
    with open(_p) as _f:
        exec(compile(_f.read(), _p, "exec"))
