"""The machinery under the numbers: processes, threads and memory, Arrow arrays
in numpy (views, compute kernels, strings, docno keys and the join of run to qrels),
and the optional extras installed.

The engine's bottom room: it imports no other part of irscore.
"""
