"""Snakemake glue for rule convention_audit: irscore.audit.write."""

from irscore.audit import write
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    write(
        snakemake.input.evals,
        snakemake.params.labels,
        snakemake.params.conventions,
        dict(snakemake.output.items()),
    )
