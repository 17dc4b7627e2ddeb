"""The bundle's entry point: the same ``verso`` as ``app.launcher:main``.

PyInstaller freezes this script; everything else (editor or command line)
is decided by :func:`app.launcher.main`.
"""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from app.launcher import main

    sys.exit(main())
