"""The engine: the numbers trec_eval would give, and nothing above them.

Reading qrels and runs (files, streams, formats, the API's DataFrames and dicts),
joining them, ranking under a convention, the measures (`measures/`), the long
table of scores (`evaluate`), trec_eval's text output, and trec_eval's extra
inputs (preferences, judgment groups, z-scores). Its modules import only each
other: no other layer of irscore. This package imports nothing itself, so a
command loads only the modules it uses.
"""
