"""What the engine writes and shows: trec_eval's text, the long table, -Z's
z-scores, the catalogue of measure names, and how messages and tables name things.

May import the engine's system/, reading/, measures/ and ranking/.
"""
