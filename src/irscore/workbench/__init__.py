"""The workbench: tools for looking closer at runs, as computations.

`explain` (one topic's ranking, measure by measure), `interleave` (simulated
users clicking an interleaved pair of runs) and `pool` (judgment pools of runs).
Their figures and report pages live in the report. Its modules import the engine
and each other; never the analysis, the report or a command. This package
imports nothing itself.
"""
