"""Two processes adding to one TM at once lose no add (issue 45, item 6: 31 of 2,416 adds had failed
on vocab.id, a process's cached next id gone stale when the other one added tokens)."""
import subprocess
import sys
import textwrap

from engine.tm.memory import TranslationMemory

WRITER = textwrap.dedent("""
    import sys
    from engine.tm.memory import TranslationMemory
    name, n = sys.argv[2], int(sys.argv[3])
    failed = 0
    with TranslationMemory(sys.argv[1]) as tm:
        for i in range(n):
            try:
                tm.add(f"Word{name}{i} and word{name}x{i} together", f"Wort{name}{i}")
            except Exception as e:
                failed += 1
                print(type(e).__name__, e, file=sys.stderr)
    print(failed)
""")


def test_two_processes_adding_new_words_at_once_lose_no_add(tmp_path):
    folder = tmp_path / "tm"
    with TranslationMemory(folder, src_lang="en", tgt_lang="de") as tm:
        tm.add("Open the file", "Datei öffnen")
    n = 150
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(folder), name, str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [o[0].strip() for o in outs] == ["0", "0"], [o[1][-500:] for o in outs]
    with TranslationMemory(folder) as tm:
        assert len(tm) == 2 * n + 1
        for name in ("a", "b"):
            hit = tm.search(f"Word{name}7 and word{name}x7 together", k=1)[0]
            assert hit.score == 1.0 and hit.target.text == f"Wort{name}7"
