"""Snakemake glue for rule reference_table: irscore.tables.write_headline."""

from irscore.logs import logging_to
from irscore.tables import write_headline

with logging_to(snakemake.log[0]):
    write_headline(snakemake.input.evals, snakemake.params.columns, dict(snakemake.output.items()))
