"""What every `verso` command loads before it starts: a command pays for what it uses (issue 46: the
parser of every group loaded the glossary readers, the project store loaded numpy through sqlite_utils)."""
from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from engine.cli import build_parser
from engine.store import Project
build_parser()
p = Project.create(sys.argv[1], src_lang="en", tgt_lang="de")
p.close()
heavy = sorted(m for m in ("numpy", "sqlite_utils", "engine.glossary.store", "engine.glossary.formats",
                           "engine.glossary.recognise", "torch") if m in sys.modules)
print(",".join(heavy))
"""


def test_a_project_command_loads_neither_numpy_nor_the_glossary_readers(tmp_path):
    r = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def test_the_glossary_api_is_still_there_when_asked_for():
    import engine.glossary as g

    assert g.Glossary.__name__ == "Glossary" and callable(g.read_glossary_file) and g.TermHit
    assert set(g.__all__) == set(g._WHERE)


def test_every_command_is_found_in_the_group_that_makes_it():
    """`verso COMMAND` registers only COMMAND's group: the map names every command of every group."""
    import argparse
    import importlib

    from engine.cli import COMMANDS, GROUPS

    made = {}
    for mod in GROUPS:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(mod).register(sub)
        made.update(dict.fromkeys(sub.choices, mod))
    assert made == COMMANDS


def test_a_command_has_the_same_help_and_errors_with_its_group_alone(capsys):
    import pytest

    from engine.cli import COMMANDS, build_parser

    for command in COMMANDS:
        out = []
        for parser in (build_parser(), build_parser(command)):
            for argv in ([command, "--help"], [command, "--no-such-option"]):
                with pytest.raises(SystemExit):
                    parser.parse_args(argv)
                out.append(capsys.readouterr())
        assert out[:2] == out[2:], command


def test_translate_starts_without_the_other_groups():
    probe = ("import sys; from engine.cli import build_parser; build_parser('translate');"
             "print(sorted(m for m in sys.modules if m.startswith('engine.cli.')))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['engine.cli.nmt']"
