"""Does a document-context model learn the toy disambiguation of the tests (issue 7)?

tests/nmt/doctoy.py: "ADJ NOUN ." documents about the zoo or golf; the first sentence names a topical noun,
later ones mostly "bat"/"seal", whose German depends on the topic (Fledermaus/Holz, Robbe/Siegel).  Trains a
small model (emb 32, hidden 48) on 600 documents and reports, on 200 new documents, the accuracy on the
ambiguous nouns with the right context and with the context of a document of the other topic:

    .venv/bin/python -m experiments.doccontext.toy_probe STRATEGIES STEPS LR MAX_FOLLOW NAME [--out $VERSO_RUNS/doctoy]
    e.g. python -m experiments.doccontext.toy_probe init-enc,init-dec,gated-aux 3000 0.003 3 best-f3   (none = no context)

Prints one JSON line.  A model that ignores the context scores about 50 % either way; one that reads it,
about 100 % with the right context and about 0 % with the other topic's.
"""
import json
import sys
from pathlib import Path

from benchmarks.paths import RUNS
import torch  # noqa: E402

torch.set_num_threads(1)
from tests.nmt.doctoy import write_doc_corpus, doc_config_dict, AMBIGUOUS, make_docs
from engine.nmt.config import ExperimentConfig
from engine.nmt.train import train
from engine.nmt.translator import Translator

strategies = sys.argv[1].split(',') if sys.argv[1] != 'none' else []
steps = int(sys.argv[2]); lr = float(sys.argv[3]); max_follow = int(sys.argv[4]); tag = sys.argv[5]
out = Path(sys.argv[sys.argv.index('--out') + 1]) if '--out' in sys.argv else RUNS / "doctoy"
root = out / tag
corpus = write_doc_corpus(root / 'data', n_train=600, n_dev=6, max_follow=max_follow)
cfg = ExperimentConfig.from_dict(doc_config_dict(corpus, model={"doc_context": strategies, "emb_dim": 32, "hidden": 48},
                                                 train={"max_steps": steps, "lr": lr, "eval_every": steps, "batch_tokens": 400}))
last = train(cfg, root / 'm')
tr = Translator.load(root / 'm')
docs = make_docs(200, 99, max_follow)
right = total = right_sw = 0
def topic_of(doc):
    return 'zoo' if doc[0][0].split()[1] in ('lion', 'tiger') else 'golf'
for d_i, doc in enumerate(docs):
    other = next(o for o in docs[d_i + 1:] + docs if topic_of(o) != topic_of(doc) and len(o) >= len(doc))
    for i, (src, tgt) in enumerate(doc):
        noun = src.split()[1]
        if noun not in AMBIGUOUS or i == 0:
            continue
        ctx = [s for s, _ in doc[:i]]
        out = tr.translate([src], beam=1, context=[ctx])[0].text
        total += 1
        right += out.split()[1:2] == tgt.split()[1:2]
        sw = tr.translate([src], beam=1, context=[[s for s, _ in other[:i]]])[0].text
        right_sw += sw.split()[1:2] == tgt.split()[1:2]
print(json.dumps({"strategies": strategies, "steps": steps, "lr": lr, "max_follow": max_follow,
                  "ambiguous_acc": round(100 * right / max(1, total), 1),
                  "with_other_topic_context": round(100 * right_sw / max(1, total), 1), "n": total, "last": last.get("reason")}))
