"""Paper reproductions (SEG-NMT, cross-sentence context, context gates and bridging) and the demo model
recipe: run each script as a module, e.g. ``python -m experiments.segnmt.prepare --help``."""
