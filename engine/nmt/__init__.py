"""The neural machine translation engine (PyTorch).

Modules, in reading order: :mod:`config` (typed experiment config),
:mod:`vocab` (sentencepiece subwords), :mod:`data` (bucketed batches),
:mod:`model` (RNNSearch with context gates and bridging), :mod:`search`
(greedy / beam / reference / forced decoding), :mod:`train` (the training
loop), :mod:`checkpoint` (the model folder), :mod:`evaluate` (sacrebleu),
:mod:`translator` (text-level API: translate, score, align).

Importing this package imports nothing heavy; its modules import torch.
"""
