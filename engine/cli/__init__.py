"""The ``verso`` command line (a stable contract: other tools call it).

Each command group lives in its own module with a ``register(subparsers)``
function; handlers return an exit status.  A :class:`~engine.errors.VersoError`
is printed as one line on stderr (exit 2); never a traceback for a user
mistake.  Modules that need torch import it inside their handlers, so
``verso tm ...`` and ``verso doc ...`` start without it.

``verso`` with no arguments launches the editor: that is done by
``app.launcher`` (the console-script entry point), which calls
:func:`main` for every other command -- the engine never imports the app.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from engine.errors import VersoError

GROUPS = ("engine.cli.doc", "engine.cli.seg", "engine.cli.tm", "engine.cli.glossary", "engine.cli.package", "engine.cli.review", "engine.cli.nmt", "engine.cli.train",
          "engine.cli.knn", "engine.cli.finetune", "engine.cli.align")
#: each command -> the group that registers it (tests/test_command_start.py checks it against GROUPS)
COMMANDS = {**dict.fromkeys(("doc", "qa", "project"), "engine.cli.doc"), "seg": "engine.cli.seg",
            "tm": "engine.cli.tm", "glossary": "engine.cli.glossary", "package": "engine.cli.package",
            "review": "engine.cli.review", **dict.fromkeys(("info", "translate", "eval", "align", "score"), "engine.cli.nmt"),
            "train": "engine.cli.train", "knn": "engine.cli.knn", "finetune": "engine.cli.finetune",
            "align-docs": "engine.cli.align"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``command`` one that :data:`COMMANDS` names only its group's
    (the same help and errors for it; the other groups' imports and options were 0.008-0.010 s of
    every command's start, 2-core VM)."""
    import importlib

    p = argparse.ArgumentParser(
        prog="verso",
        description="Verso: computer-aided translation with a memory-guided neural engine. "
                    "Run without arguments to open the editor.",
    )
    p.add_argument("--version", action="version", version=f"verso {__import__('engine').__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in (COMMANDS[command],) if command in COMMANDS else GROUPS:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:  # a group not built yet
            if e.name == mod:
                continue
            raise
        m.register(sub)
    for name, group in sub.choices.items():
        group.set_defaults(_group_parser=group)
    return p


def print_json(obj, *, lines: bool = False) -> None:
    """JSON on stdout, UTF-8, one object per line when ``lines``."""
    s = json.dumps(obj, ensure_ascii=False, indent=None if lines else 2)
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv``; returns its exit status.  ``argv`` None: the process's own arguments,
    and a process that loaded torch then ends here (:func:`end_process`)."""
    rc = _run(argv)
    if argv is None:
        end_process(rc)
    return rc


def end_process(rc: int) -> None:
    """End a process that loaded torch with status ``rc`` now, without the interpreter's teardown of
    torch's modules and libtorch's static objects (0.1 s of the 1.1 s CPU of a one-sentence `verso
    translate`, 2-core VM): the exit handlers run and the standard streams are flushed first, as at a
    normal exit.  Returns (the interpreter ends as usual) without torch or while another thread it
    would wait for runs."""
    import atexit
    import os
    import threading

    if "torch" not in sys.modules or any(t is not threading.main_thread() and not t.daemon and t.is_alive()
                                         for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: as the interpreter's own exit, nothing more to say
            pass
    os._exit(rc)


def _run(argv: Sequence[str] | None) -> int:
    import os

    from engine.urls import restore_secret_args

    # a detached run (engine.training.runs) gets its URLs' passwords through the environment
    words = restore_secret_args(list(sys.argv[1:] if argv is None else argv), os.environ)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    if not getattr(args, "handler", None):
        # `verso` alone prints the top help; `verso tm` prints the group's help.
        group = getattr(args, "_group_parser", None)
        (group or parser).print_help()
        return 0 if args.command is None else 2
    try:
        return int(args.handler(args) or 0)
    except VersoError as e:
        print(f"verso: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("verso: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
