"""`irscore evaluate` on small plain TREC files in plain Python (no numpy, no
Arrow): importing those would cost more than scoring such files.

May import the engine's system/, reading/, measures/, ranking/ and output/: only
modules that load neither numpy nor Arrow (tests/test_plain_evaluate.py).
"""
