"""Spelling: Hunspell dictionaries read by spylls (a pure-Python port of Hunspell).

* :mod:`~engine.spelling.dictionaries`: where dictionaries are and which one a language means
  (:func:`find_dictionary`);
* :mod:`~engine.spelling.words`: the words of a text that are checked (:func:`iter_words`);
* :mod:`~engine.spelling.checker`: :class:`SpellChecker` checks words (cached), finds the
  misspelt words of a segment and suggests corrections within a time budget;
* :mod:`~engine.spelling.hunspell`: the dictionary read here (the CLI's QA);
  :mod:`~engine.spelling.process` and :mod:`~engine.spelling.server`: read in a child process
  (the editor: spylls is Python, and reading German -- 1-3 s -- on a thread of the editor held
  the interpreter lock while the translator browsed);
* :mod:`~engine.spelling.project`: :class:`ProjectDictionary`, a project's own word list, and
  :func:`spelling_issues`, the QA check "spelling".

Headless: no Qt, no torch.
"""
from __future__ import annotations

from engine.spelling.checker import SUGGEST_BUDGET_S, SpellChecker
from engine.spelling.dictionaries import (PACKAGE_FOLDERS, SYSTEM_FOLDERS, DictionaryInfo,
                                          available_dictionaries, dictionary_folders, find_dictionary,
                                          package_folders, user_dictionary_folder)
from engine.spelling.project import ProjectDictionary, no_dictionary_issue, spelling_issues
from engine.spelling.words import Misspelling, iter_words

__all__ = ["DictionaryInfo", "Misspelling", "PACKAGE_FOLDERS", "ProjectDictionary", "SUGGEST_BUDGET_S",
           "SYSTEM_FOLDERS", "SpellChecker", "available_dictionaries", "dictionary_folders",
           "find_dictionary", "iter_words", "no_dictionary_issue", "package_folders", "spelling_issues",
           "user_dictionary_folder"]
