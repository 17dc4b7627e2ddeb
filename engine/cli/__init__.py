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


def build_parser() -> argparse.ArgumentParser:
    import importlib

    p = argparse.ArgumentParser(
        prog="verso",
        description="Verso: computer-aided translation with a memory-guided neural engine. "
                    "Run without arguments to open the editor.",
    )
    p.add_argument("--version", action="version", version=f"verso {__import__('engine').__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in GROUPS:
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
    import os

    from engine.urls import restore_secret_args

    parser = build_parser()
    # a detached run (engine.training.runs) gets its URLs' passwords through the environment
    args = parser.parse_args(restore_secret_args(list(sys.argv[1:] if argv is None else argv), os.environ))
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
