"""The preset's findings by id (what `--intended` accepts). Imports nothing heavy (no torch):
the command line validates `--intended` before importing torch."""

FP4 = "fp4-fallback-not-auto"
KEYERROR = "kv-str-keyerror"
FINDINGS = (FP4, KEYERROR)  # the fixable ones (intended.py), in the order `known:` lists them
