"""The report: every table, curve, figure and summary of a set of runs, from one code.

The workflow's report jobs and `irscore audit` both call report.pipeline, with
the file names of report.layout and the runs' numbers through irscore.analysis.results.
This package imports nothing itself, so the Snakefile can read report.layout and
report.settings while it builds the DAG.
"""
