"""Snakemake glue for rule tiebreak_table: irscore.ties.write_tie_table."""

from irscore.logs import logging_to
from irscore.ties import write_tie_table

with logging_to(snakemake.log[0]):
    write_tie_table(
        snakemake.input.qrels,
        snakemake.input.runs,
        snakemake.input.evals,
        snakemake.params.conventions,
        dict(snakemake.output.items()),
    )
