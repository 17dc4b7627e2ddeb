"""engine.nmt.significance: the paired bootstrap that says whether a BLEU difference is noise."""
from __future__ import annotations

import random

import pytest

from engine.nmt.evaluate import paired_bootstrap as from_evaluate
from engine.nmt.significance import main, paired_bootstrap

WORDS = "the cat sat on a mat while dog ran to house in garden with red ball".split()


def corpus(n: int = 300, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))) for _ in range(n)]


def damage(lines: list[str], share: float, seed: int) -> list[str]:
    """Drop every word of a random ``share`` of lines but the first two."""
    rng = random.Random(seed)
    return [" ".join(x.split()[:2]) if rng.random() < share else x for x in lines]


def test_a_clearly_better_system_is_significant_and_one_better_by_chance_is_not():
    ref = corpus()
    base = damage(ref, 0.5, 1)
    better = damage(ref, 0.2, 2)   # 20 % of lines damaged instead of 50 %
    lucky = damage(ref, 0.5, 4)    # as damaged as the baseline, other lines: a little higher by chance
    assert from_evaluate is paired_bootstrap                   # the evaluation module offers it too
    rows = paired_bootstrap(ref, [("base", base), ("better", better), ("lucky", lucky)], n=200)
    assert [r["name"] for r in rows] == ["base", "better", "lucky"]
    assert rows[0]["bleu"]["p"] is None                      # the baseline is not compared with itself
    assert rows[1]["bleu"]["score"] > rows[0]["bleu"]["score"] and rows[1]["bleu"]["p"] < 0.05
    assert rows[1]["chrf"]["p"] < 0.05 and rows[1]["bleu"]["ci"] > 0
    assert rows[2]["bleu"]["score"] > rows[0]["bleu"]["score"] and rows[2]["bleu"]["p"] > 0.2


def test_the_command_scores_a_subset_of_lines_and_refuses_files_of_another_length(tmp_path, capsys):
    ref = corpus(50)
    (tmp_path / "ref").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (tmp_path / "a").write_text("\n".join(damage(ref, 0.5, 3)) + "\n", encoding="utf-8")
    (tmp_path / "b").write_text("\n".join(ref) + "\n", encoding="utf-8")
    (tmp_path / "lines").write_text("1\n2\n3\n10\n", encoding="utf-8")
    main(["--ref", str(tmp_path / "ref"), "--lines", str(tmp_path / "lines"), "--samples", "50",
          f"a={tmp_path / 'a'}", f"b={tmp_path / 'b'}"])
    out = capsys.readouterr().out
    assert "| system (4 sentences)" in out and "| b | 100.00 |" in out
    (tmp_path / "short").write_text("\n".join(ref[:49]) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="short: 49 lines, the reference has 50"):
        main(["--ref", str(tmp_path / "ref"), f"a={tmp_path / 'a'}", f"short={tmp_path / 'short'}"])
