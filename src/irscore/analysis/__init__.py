"""The analysis: what the numbers mean.

Paired significance tests (`stats`), comparisons of runs, the convention audit,
ties, precision-recall curves, the systems table, rank correlation, the view of
long tables every report reads (`results`) and the published figures beside the
regenerated ones. Its modules import the engine, the pipeline and each other;
never the workbench, the report or a command. This package imports nothing itself.
"""
