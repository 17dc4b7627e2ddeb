"""Training runs in the background, outliving the editor (no torch here).

The editor starts ``python -m engine train|finetune ... --events`` as a
process of its own session (closing the editor does not stop it); the
process prints one JSON event a line into ``OUT/events.jsonl`` and its
errors into ``OUT/stderr.log``; ``OUT/run.json`` keeps the command and the
process id.  Anyone can then ask :func:`status` (running, finished,
cancelled, interrupted -- killed or crashed --, failed), read the events
(:class:`EventTail`), :func:`cancel` (SIGTERM: the run stops within 5 s in
any phase, :mod:`engine.training.stopping`) or :func:`resume` (the same command again: the flow goes
on from its last checkpoint).

``run.json`` keeps the command without credentials (a TM URL's password
stays in this process's memory, else in libpq's ``~/.pgpass``); the files of
the run folder are read through :mod:`engine.folder_guard`.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ConfigError, ModelError
from engine.fsutil import atomic_write
from engine import folder_guard
from engine.training.events import TrainingEvent, parse_event
from engine.urls import argv_without_secrets

RUN = "run.json"
EVENTS = "events.jsonl"
STDERR = "stderr.log"
#: what :func:`launch` writes into the run folder before the run itself starts
LAUNCH_FILES = (RUN, EVENTS, STDERR)
#: the processes this process started (reaped by :func:`status`, so a finished one is not a zombie)
_children: dict[int, subprocess.Popen] = {}
#: the command of each run started here, credentials included (for resume; run.json has none)
_commands: dict[Path, list[str]] = {}


@dataclass
class RunStatus:
    folder: Path
    state: str                  # none | running | finished | cancelled | interrupted | failed
    pid: int | None = None
    kind: str = ""              # train | finetune
    last: dict = field(default_factory=dict)   # the last event
    error: str = ""

    @property
    def resumable(self) -> bool:
        return self.state in ("cancelled", "interrupted", "failed")

    @property
    def last_event(self) -> TrainingEvent | None:
        """The last event as the editor reads it (:func:`engine.training.events.parse_event`); None: none yet."""
        return parse_event(self.last) if self.last else None


def launch(out: str | Path, args: list[str], *, env: dict | None = None) -> int:
    """Start ``python -m engine ARGS`` detached, its events to ``OUT/events.jsonl``; return its pid."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    st = status(out)
    if st.state == "running":
        raise ConfigError(f"{out}: a training run is already running there (process {st.pid})")
    clean, secret_env = argv_without_secrets(list(args))  # no password on the command line
    argv = [sys.executable, "-m", "engine", *clean]
    kind = "finetune" if args and args[0] == "finetune" else "train"
    # events accumulate over attempts (the dialog reads them all); errors are those of the latest attempt
    with open(out / EVENTS, "ab") as ev, open(out / STDERR, "wb") as err:
        kw: dict = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
            | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=ev, stderr=err,
                                env={**os.environ, **(env or {}), **secret_env}, **kw)
    _children[proc.pid] = proc
    _commands[out.resolve()] = list(args)
    with atomic_write(out / RUN, "w", encoding="utf-8") as fh:
        json.dump({"args": clean, "kind": kind, "pid": proc.pid,
                   "launched": time.time()}, fh, indent=2)
    return proc.pid


def _read(out: Path, name: str) -> dict:
    """A JSON file of the run folder, or {} when it is missing or unreadable."""
    if not ((out / name).is_file() or (out / name).is_symlink()):
        return {}
    try:
        return folder_guard.read_json(out, name)
    except ModelError:
        return {}


def _alive(pid: int, out: Path) -> bool:
    proc = _children.get(pid)
    if proc is not None:
        if proc.poll() is not None:
            _children.pop(pid, None)
            return False
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    stat, cmd = Path(f"/proc/{pid}/stat"), Path(f"/proc/{pid}/cmdline")
    try:  # a reused pid, or a zombie, is not our run
        if stat.is_file() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
        if cmd.is_file():
            return str(out.name).encode() in cmd.read_bytes()
    except OSError:
        return False
    return True


def _last_event(out: Path, window: int = 1 << 16) -> dict:
    """The last whole event of ``OUT/events.jsonl``, reading only the file's end (the editor asks
    several times a second while the file grows by a line per logged step)."""
    try:
        with open(out / EVENTS, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - window))
            data = fh.read()
    except FileNotFoundError:
        return {}
    for raw in reversed(data[:data.rfind(b"\n") + 1].splitlines()):
        ev = EventTail.parse(raw)
        if ev is not None:
            return ev
    return {}


class EventTail:
    """The events appended to ``OUT/events.jsonl`` since the last :meth:`read` (whole lines only)."""

    def __init__(self, out: str | Path, offset: int = 0):
        self.path = Path(out) / EVENTS
        self.offset = offset

    def read(self) -> list[dict]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        return [ev for ev in map(self.parse, data[:end].splitlines()) if ev is not None]

    def events(self) -> list[TrainingEvent]:
        """:meth:`read`, each event parsed once into its dataclass (:mod:`engine.training.events`)."""
        return [parse_event(ev) for ev in self.read()]

    @staticmethod
    def parse(raw: bytes) -> dict | None:
        """One line as an event, or None (not JSON, not an event)."""
        try:
            ev = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        return ev if isinstance(ev, dict) and "event" in ev else None


def status(out: str | Path) -> RunStatus:
    out = Path(out)
    run, rec = _read(out, RUN), _read(out, "training.json")
    if not run and not rec:
        return RunStatus(out, "none")
    pid = run.get("pid") or rec.get("pid")
    pid = pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None
    kind = run.get("kind") or rec.get("kind", "")
    last = _last_event(out)
    if pid and _alive(pid, out):
        return RunStatus(out, "running", int(pid), kind, last)
    if rec.get("status") == "finished":
        return RunStatus(out, "finished", None, kind, rec.get("final") or last)
    if last.get("event") == "cancelled" or rec.get("status") == "cancelled":
        return RunStatus(out, "cancelled", None, kind, last)
    err = ""
    try:
        lines = (out / STDERR).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        err = lines[-1] if lines else ""
    except OSError:
        pass
    if last.get("event") == "error" or (err and err.startswith("verso:")) or rec.get("status") == "failed":
        return RunStatus(out, "failed", None, kind, last, last.get("message") or err or str(rec.get("error", "")))
    return RunStatus(out, "interrupted", None, kind, last, err)


def cancel(out: str | Path) -> bool:
    """Ask a running run to stop (it saves and reports ``cancelled``); False when none runs."""
    st = status(out)
    if st.state != "running" or st.pid is None:
        return False
    os.kill(st.pid, signal.SIGTERM)
    return True


def resume(out: str | Path) -> int:
    """Start the run's command again (it goes on from its last checkpoint)."""
    out = Path(out)
    st = status(out)
    if st.state == "running":
        raise ConfigError(f"{out}: the run is still running")
    args = _commands.get(out.resolve()) or _read(out, RUN).get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args) or not args:
        raise ConfigError(f"{out / RUN}: no command to resume (the run was not started here)")
    return launch(out, args)


def wait(out: str | Path, timeout: float) -> RunStatus:
    """Block until the run stops or ``timeout`` seconds pass (for scripts and tests)."""
    end = time.time() + timeout
    while True:
        st = status(out)
        if st.state != "running" or time.time() > end:
            return st
        time.sleep(0.2)
