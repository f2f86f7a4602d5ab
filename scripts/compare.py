"""Snakemake glue for rule compare: irscore.audit.write_comparisons."""

from irscore.audit import write_comparisons
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    write_comparisons(
        snakemake.input.evals,
        snakemake.params.conventions,
        snakemake.params.settings,
        dict(snakemake.output.items()),
    )
