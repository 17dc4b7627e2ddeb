"""Shared TMs (PostgreSQL) as the TM thread sees them: offline, refusing this user, read-only.

A shared TM may be unreachable: a confirmed pair then waits in the project's outbox
(:mod:`engine.tm.outbox`, a file in the project folder) and is sent, in order, when the
server answers again (tried on every TM call and every ``RETRY_MS``); lookups go on with
the other TMs.  ``shared_state`` says so in words for the status bar ("" when all is well);
a read-only database user's confirm never reaches the TM, and ``shared_state`` says why.

A shared TM searched in a local replica (:class:`engine.tm.shared.SharedTM`) says what
the replica is doing: its first copy and the index build after it (``replica_state``,
with a Cancel for the copy), and, while its feed cannot reach the server, that searches
answer from this computer's copy (``shared_state``).  The replica's feed thread changes
that state, so the TM thread looks every ``POLL_MS`` while it is idle (attribute reads;
the copy's unit count is read once per outage) -- the UI thread never waits for it.

:class:`SharedTMs` is the part of :class:`app.tmservice.TMService` that does this; every
method runs on the TM thread except the state slot.
"""
from __future__ import annotations

import contextlib
import time
from datetime import datetime

from app.uipost import post_to
from engine.inline import TaggedText
from engine.tm import TMOffline, TMReadOnly, TMRefused
from engine.tm.outbox import Outbox

RETRY_MS = 15_000
#: How often the TM thread (when idle) looks at the shared TMs' replicas: copy, index, connection.
POLL_MS = 1000


def replica_of(tm):
    """The local replica ``tm`` (a shared TM) searches or is copying into, else None."""
    return getattr(tm, "replica", None)


def cut_off(tm) -> bool:
    """``tm`` answers searches from its finished replica while its feed cannot reach the server
    (:class:`engine.tm.shared.SharedTM` sets ``feed_error`` to "...: the server cannot be reached (...)")."""
    r = replica_of(tm)
    return (r is not None and r.ready and not tm.online
            and "cannot be reached" in getattr(tm, "feed_error", ""))


def _when(ts: float | None) -> str:
    if not ts:
        return "an unknown time"
    t = datetime.fromtimestamp(ts)
    return t.strftime("%H:%M") if t.date() == datetime.now().date() else t.strftime("%Y-%m-%d %H:%M")


class SharedTMs:
    """Mixed into TMService: ``infos``, ``tms``, ``project_folder``, ``src_lang``/``tgt_lang``,
    ``_outbox``, ``_state``, ``_refused``, ``_retry``, ``_cut``, ``_copy_sizes``
    and ``shared_state`` are the service's."""

    def outbox(self) -> Outbox:
        if self._outbox is None:
            self._outbox = Outbox.of_project(self.project_folder)
        return self._outbox

    def _set_state(self, msg: str) -> None:
        if msg != self._state:
            self._state = msg
            # (on the TM thread: the emit is the UI thread's, where a closed window's service
            # is never being deleted under it -- app/uipost.py)
            post_to(self, lambda service: service.shared_state.emit(msg))

    def _check_shared(self, force: bool = False) -> None:
        """Reconnect offline shared TMs, send what waits in the outbox, and say how things stand.
        A TM whose server refuses this user (a password, a grant) is tried again on the retry
        timer (``force``) or RETRY_MS after its last refusal, not on every confirm: the owner
        has to act first, and a confirm must not wait for a login that will fail again."""
        msgs = []
        for i, info in enumerate(self.infos):
            if not info.shared:
                continue
            due = force or i not in self._refused or time.monotonic() >= self._refused[i][1]
            if self.tms[i] is None and due:
                try:
                    self.tms[i] = self._open(info)
                except TMOffline as e:
                    if isinstance(e, TMRefused):
                        self._refuse(i, e)
            tm = self.tms[i]
            waiting = self.outbox().pending(info.key) if info.writable else 0
            if tm is not None and waiting and due and not cut_off(tm):  # (its feed says when it is back)
                if not tm.writable:
                    self.outbox().drop(info.key)
                    waiting = 0
                else:
                    try:
                        self.outbox().send(info.key, tm)
                        waiting = 0
                        self._refused.pop(i, None)
                    except TMOffline as e:
                        waiting = self.outbox().pending(info.key)
                        self._offline(info, e)
            elif tm is not None and not waiting and not (i in self._refused and self._refused[i][0].writes):
                self._refused.pop(i, None)
            tail = f" — {waiting} confirmed segment(s) waiting to be sent" if waiting else ""
            if waiting and self.outbox().full(info.key):
                tail += " (the outbox is full: later confirmations are kept in the project only)"
            if i in self._refused:
                why = self._refused[i][0]
                msgs.append(f"Shared TM {info.name} refuses {'writes' if why.writes else 'this user'}: "
                            f"{why.reason}{tail}")
            elif self.tms[i] is None:
                msgs.append(f"Shared TM {info.name} offline{tail}")
            elif cut_off(self.tms[i]):
                msgs.append(f"Shared TM {info.name} offline: searching your copy ({self._copy_size(i):,} units, "
                            f"as of {_when(replica_of(self.tms[i]).current_at)}){tail}")
            elif info.writable and not self.tms[i].writable:
                msgs.append(f"Shared TM {info.name} is read-only for this user: confirmed segments are not "
                            "added to it")
            elif waiting:  # a write failed before its feed noticed (a network cut: up to 20 s)
                msgs.append(f"Shared TM {info.name} offline{tail}")
        self._set_state("; ".join(msgs))

    def _copy_size(self, i: int) -> int:
        """Units of shared TM ``i``'s replica, counted once per outage (nothing changes it meanwhile)."""
        if i not in self._copy_sizes:
            r = replica_of(self.tms[i])
            with r.lock:
                self._copy_sizes[i] = r.tm.conn.execute("SELECT count(*) FROM units").fetchone()[0]
        return self._copy_sizes[i]

    # -- the replicas: first copy, index, connection (polled on the TM thread) ------
    def _replica_poll(self, control) -> tuple[str, bool]:
        """What the shared TMs' replicas are doing, for the status bar ("" when nothing), and
        whether a copy may be cancelled; says again how the shared TMs stand when one lost or found its server."""
        parts, cancellable = [], False
        for i, (info, tm) in enumerate(zip(self.infos, self.tms)):
            r = replica_of(tm)
            if r is None:
                continue
            off = cut_off(tm)
            if off != (i in self._cut):
                self._cut.symmetric_difference_update({i})
                self._copy_sizes.pop(i, None)
                self._check_shared()  # offline: say so; back: send what waits in the outbox
            syncing, rebuilding = tm.syncing, r.tm.rebuilding
            if syncing is not None and not r.has_cursor:
                done, total = syncing
                parts.append(f"Shared TM {info.name}: copying {done:,} of {total:,} units")
                cancellable = True
            elif rebuilding is not None:
                done, total = rebuilding
                parts.append(f"Shared TM {info.name}: building its index ({100 * done // max(total, 1)} %)")
                with r.lock:
                    r.tm.wait_for_index(0)  # a finished build is put in place
            elif "cancelled" in tm.feed_error:
                parts.append(f"Shared TM {info.name}: copy cancelled -- searches go to the server; "
                             "it goes on when the project is opened again")
        return "; ".join(parts), cancellable

    def cancel_sync(self) -> None:
        """Stop the first copy of every shared TM under way (an Event: safe from the UI thread)."""
        for tm in list(self.tms):
            if replica_of(tm) is not None and tm.syncing is not None:
                tm.cancel_sync()

    def _on_state(self, msg: str) -> None:
        if "offline" in msg or "refuses" in msg:
            self._retry.start()
        else:
            self._retry.stop()

    def _reconnect(self, control) -> None:
        self._check_shared(force=True)

    def _offline(self, info, error: TMOffline | None = None) -> None:
        """``info`` (a TMInfo) cannot be reached, or refuses this user ``error``."""
        i = self.infos.index(info)
        if isinstance(error, TMRefused):
            self._refuse(i, error)
            if error.writes:
                return  # it still answers searches
        tm = self.tms[i]
        r = replica_of(tm)
        if r is not None and r.ready and not isinstance(error, TMRefused):
            return  # its replica answers searches; its feed reconnects by itself
        self.tms[i] = None
        if r is not None:  # its feed thread (a first copy, perhaps) stops; a new opening resumes it
            with contextlib.suppress(Exception):
                tm.close()

    def _refuse(self, i: int, error: TMRefused) -> None:
        self._refused[i] = (error, time.monotonic() + RETRY_MS / 1000 - 1)

    # -- the write of a confirmed pair ---------------------------------------------
    def _add(self, control, source: TaggedText, target: TaggedText, meta: dict) -> int | None:
        info = self.writable_info()
        tm = self.writable()
        meta = dict(meta)
        origin, creator = meta.pop("origin", "project"), meta.pop("creator", "")
        if info is None:
            return None
        if info.shared:
            if tm is not None and not tm.writable:
                self._check_shared()  # says why the confirm does not reach the TM
                return None
            if tm is not None and self.outbox().pending(info.key):
                self._check_shared()  # the older confirmations first
                tm = self.writable()
            if tm is None or self.outbox().pending(info.key):  # (still refused: behind the others)
                self.outbox().put(info.key, source, target, src_lang=self.src_lang, tgt_lang=self.tgt_lang,
                                  origin=origin, creator=creator, meta=meta)
                self._check_shared()
                return None
            try:
                return tm.add(source, target, origin=origin, creator=creator, meta=meta)
            except TMOffline as e:
                self._offline(info, e)
                self.outbox().put(info.key, source, target, src_lang=self.src_lang, tgt_lang=self.tgt_lang,
                                  origin=origin, creator=creator, meta=meta)
                self._check_shared()
                return None
            except TMReadOnly:
                tm.writable = False
                self._check_shared()
                return None
        if tm is None:
            return None
        return tm.add(source, target, origin=origin, creator=creator, meta=meta)
