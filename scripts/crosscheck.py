"""Snakemake glue for rule crosscheck: irscore.crosscheck.crosscheck_files."""

from irscore.crosscheck import crosscheck_files
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    crosscheck_files(
        snakemake.input.qrels,
        snakemake.input.run,
        snakemake.output[0],
        measures_config=snakemake.params.measures,
    )
