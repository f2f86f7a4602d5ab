"""Snakemake glue for rule summary: irscore.summary.write."""

from irscore.logs import logging_to
from irscore.summary import write

with logging_to(snakemake.log[0]):
    write(
        snakemake.input.qrels,
        snakemake.input.evals,
        snakemake.input.crosschecks,
        snakemake.params.columns,
        snakemake.output[0],
        tiebreak=snakemake.input.tiebreak,
        curves=snakemake.input.curves,
        interpolations=snakemake.params.interpolations,
        audit=snakemake.input.audit,
        appendix=snakemake.input.appendix,
    )
