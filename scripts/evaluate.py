"""Snakemake glue for rule evaluate: irscore.evaluate.evaluate_files."""

from irscore.evaluate import evaluate_files
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    evaluate_files(
        snakemake.input.qrels,
        snakemake.input.run,
        snakemake.output[0],
        run_name=snakemake.wildcards.run,
        conventions=snakemake.params.conventions,
        measures_config=snakemake.params.measures,
    )
