"""Snakemake glue for rule evaluate: irscore.crosscheck.evaluate_and_crosscheck_files."""

from irscore.crosscheck import evaluate_and_crosscheck_files
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    evaluate_and_crosscheck_files(
        snakemake.input.qrels,
        snakemake.input.run,
        snakemake.output.eval,
        snakemake.output.crosscheck,
        run_name=snakemake.wildcards.run,
        conventions=snakemake.params.conventions,
        measures_config=snakemake.params.measures,
    )
