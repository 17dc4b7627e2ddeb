"""``python -m engine ...``: the headless command line (no editor)."""
import sys

from engine.cli import main

sys.exit(main())
