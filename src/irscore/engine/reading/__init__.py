"""Reading qrels and runs: the error of bad input, streams (files, pipes,
compression), formats, the fast and the careful line readers, the TREC readers
and writers, JSON and Parquet runs, and the Python API's DataFrames and dicts.

May import the engine's system/ only.
"""
