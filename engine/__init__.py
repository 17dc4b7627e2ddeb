"""Verso engine: everything headless (formats, store, TM, NMT, CLI).

The engine never imports ``app`` or Qt (see the import-linter contracts in
pyproject.toml).  The TM, formats and store modules never import torch, so
``verso tm ...`` and the editor's first paint start fast.
"""

__version__ = "0.1.0"
