import pytest

from engine.errors import FormatError
from engine.inline import protect, tag_char
from engine.nmt.data import collate, encode_corpus, make_batches, read_lines, read_parallel
from engine.nmt.vocab import EOS, PAD, train_vocab, word_spans


@pytest.fixture(scope="module")
def vocab(toy_corpus):
    lines = read_lines(toy_corpus["train_en"]) + read_lines(toy_corpus["train_de"])
    return train_vocab(lines, vocab_size=120, tag_symbols=8)


def test_inline_tags_survive_as_single_pieces(vocab):
    text = protect("The <b>red</b> car %1 sees a dog").text
    ids = vocab.encode(text)
    pieces = vocab.pieces(ids)
    for n in (1, 2, 3):
        assert pieces.count(tag_char(n)) == 1  # one piece, not split, not merged
    assert vocab.decode(ids) == text


def test_decode_gives_detokenised_cased_text(vocab):
    s = "Der rote Hund sieht einen Ball."
    assert vocab.decode(vocab.encode(s)) == s


def test_word_spans_group_subwords():
    assert word_spans(["▁Ein", "e", "▁Katze", ".", "</s>"]) == [(0, 2), (2, 4)]
    assert word_spans(["▁", tag_char(1), "Save", "▁now"]) == [(0, 3), (3, 4)]


def test_batches_respect_the_token_budget_and_cover_every_pair_once(toy_corpus, vocab):
    src, tgt = read_parallel(toy_corpus["train_en"], toy_corpus["train_de"])
    ex = encode_corpus(src, tgt, vocab, vocab)
    assert all(e.src[-1] == EOS and e.tgt[-1] == EOS for e in ex)
    batches = make_batches(ex, 300, seed=3, epoch=0)
    seen = sorted(e.index for b in batches for e in b)
    assert seen == sorted(e.index for e in ex)
    for b in batches:
        longest = max(max(len(e.src), len(e.tgt)) for e in b)
        assert longest * len(b) <= 300 or len(b) == 1
    # same seed and epoch: same batches (resume); another epoch: another order
    again = make_batches(ex, 300, seed=3, epoch=0)
    assert [[e.index for e in b] for b in again] == [[e.index for e in b] for b in batches]
    other = make_batches(ex, 300, seed=3, epoch=1)
    assert [[e.index for e in b] for b in other] != [[e.index for e in b] for b in batches]


def test_collate_pads_and_masks(toy_corpus, vocab):
    src, tgt = read_parallel(toy_corpus["train_en"], toy_corpus["train_de"])
    ex = encode_corpus(src[:5], tgt[:5], vocab, vocab)
    b = collate(ex)
    for i, e in enumerate(ex):
        assert b.src_mask[i].sum() == len(e.src)
        assert b.tgt_out[i, :len(e.tgt)].tolist() == e.tgt
        assert b.tgt_in[i, 1:len(e.tgt)].tolist() == e.tgt[:-1]
        assert (b.src[i, len(e.src):] == PAD).all()
    assert b.n_tgt == sum(len(e.tgt) for e in ex)


def test_over_long_pairs_are_dropped(toy_corpus, vocab):
    src, tgt = read_parallel(toy_corpus["train_en"], toy_corpus["train_de"])
    ex = encode_corpus(src, tgt, vocab, vocab, max_len=16)
    assert ex and all(len(e.src) <= 16 and len(e.tgt) <= 16 for e in ex)
    assert len(ex) < len(src)


def test_misaligned_files_are_an_error_naming_them(tmp_path):
    (tmp_path / "a").write_text("x\ny\n")
    (tmp_path / "b").write_text("x\n")
    with pytest.raises(FormatError, match="not line-aligned"):
        read_parallel(tmp_path / "a", tmp_path / "b")
    (tmp_path / "c").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(FormatError, match="UTF-8"):
        read_lines(tmp_path / "c")
