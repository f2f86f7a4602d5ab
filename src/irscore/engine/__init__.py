"""The engine: the numbers trec_eval would give, and nothing above them.

Its rooms, bottom first, each importing only the rooms before it
(tests/test_layers.py):
  system/    processes, threads, memory, Arrow arrays in numpy, docno keys, the join
  reading/   files, streams, formats, the line readers, the API's DataFrames and dicts
  measures/  one declaration per family, the kernels, the names, trec_eval's averages
  ranking/   conventions, codes (prepare), subtopics, the ranking, the input verdicts
  output/    trec_eval's text, the long table, z-scores, the catalogue of names
  small/     small plain files scored in plain Python, without numpy or Arrow
On top of them all: evaluate (qrels, run, conventions -> values), the Python API's
arguments, and trec_eval's other judgments (prefs, judgment groups, `judgments`).
The engine imports no other layer of irscore; this package and its rooms import
nothing themselves (measures/ names its public pieces), so a command loads only the
modules it uses.
"""
