"""Subword vocabularies (sentencepiece), trained on the training data.

The model sees subword ids; the user never does: :meth:`SubwordVocab.decode`
gives back detokenised, cased text.  Inline tags (single private-use
characters, see :mod:`engine.inline`) are ``user_defined_symbols`` so each
survives as exactly one piece that is never split or merged.

Fixed ids: 0 ``<pad>``, 1 ``<unk>``, 2 ``<s>``, 3 ``</s>``.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Iterable, Iterator

import sentencepiece as spm

from engine.errors import ModelError
from engine.fsutil import atomic_write
from engine.inline import tag_char

PAD, UNK, BOS, EOS = 0, 1, 2, 3
WORD_START = "\u2581"  # sentencepiece's visible space "▁"


class SubwordVocab:
    """A loaded sentencepiece model."""

    def __init__(self, model_proto: bytes, *, name: str = "spm.model"):
        self.name = name
        self.sp = spm.SentencePieceProcessor()
        try:
            self.sp.LoadFromSerializedProto(model_proto)
        except Exception as e:  # sentencepiece raises RuntimeError/OSError on bad protos
            raise ModelError(f"{name}: not a sentencepiece model ({e})") from None
        if self.sp.pad_id() != PAD or self.sp.eos_id() != EOS or self.sp.bos_id() != BOS:
            raise ModelError(f"{name}: unexpected special-token ids (pad/bos/eos must be 0/2/3)")
        self.model_proto = model_proto

    @classmethod
    def load(cls, path: str | Path) -> "SubwordVocab":
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ModelError(f"{path}: cannot read subword model: {e.strerror or e}") from None
        return cls(data, name=str(path))

    def save(self, path: str | Path) -> None:
        with atomic_write(path) as fh:
            fh.write(self.model_proto)

    def __len__(self) -> int:
        return self.sp.get_piece_size()

    def encode(self, text: str) -> list[int]:
        """Subword ids of ``text`` (no BOS/EOS)."""
        return self.sp.encode(text, out_type=int)

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return self.sp.encode(texts, out_type=int)

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.sp.id_to_piece(int(i)) for i in ids]

    def decode(self, ids: Iterable[int]) -> str:
        """Detokenised text; special ids are dropped."""
        return self.sp.decode([int(i) for i in ids if int(i) > EOS])


def train_vocab(sentences: Iterable[str], *, vocab_size: int, tag_symbols: int = 32,
                character_coverage: float = 1.0, sample: int = 2_000_000,
                name: str = "spm.model") -> SubwordVocab:
    """Train a unigram sentencepiece model in memory.

    ``vocab_size`` is a ceiling: on tiny corpora sentencepiece makes fewer
    pieces instead of failing.
    """
    tags = [tag_char(n) for n in range(1, tag_symbols + 1)]
    buf = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=_nonempty(sentences),
            model_writer=buf,
            model_type="unigram",
            vocab_size=vocab_size,
            hard_vocab_limit=False,
            pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS,
            user_defined_symbols=tags,
            character_coverage=character_coverage,
            input_sentence_size=sample,
            shuffle_input_sentence=True,
            num_threads=1,
            minloglevel=2,
        )
    except RuntimeError as e:
        raise ModelError(f"{name}: sentencepiece training failed: {e}") from None
    return SubwordVocab(buf.getvalue(), name=name)


def _nonempty(lines: Iterable[str]) -> Iterator[str]:
    for s in lines:
        s = s.strip()
        if s:
            yield s


def word_spans(pieces: list[str]) -> list[tuple[int, int]]:
    """Group subword pieces into words: ``[(start, end), ...]`` piece ranges.

    A word starts at a piece beginning with "▁" (sentencepiece's space);
    pieces that are specials (``</s>``) form no word.

    >>> word_spans(["▁Ein", "e", "▁Katze", "."])
    [(0, 2), (2, 4)]
    """
    spans: list[list[int]] = []
    for i, p in enumerate(pieces):
        if p in ("</s>", "<s>", "<pad>"):
            continue
        if p.startswith(WORD_START) or not spans:
            spans.append([i, i + 1])
        else:
            spans[-1][1] = i + 1
    # a lone "▁" piece (before a tag or a rare character) joins the next piece's word
    out: list[tuple[int, int]] = []
    carry: int | None = None
    for s, e in spans:
        if carry is not None:
            s = carry
            carry = None
        if e - s == 1 and pieces[s] == WORD_START:
            carry = s
            continue
        out.append((s, e))
    if carry is not None:
        out.append((carry, carry + 1))
    return out
