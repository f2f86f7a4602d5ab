"""Snakemake glue for rule published: irscore.published.write_published."""

from irscore.logs import logging_to
from irscore.published import write_published

with logging_to(snakemake.log[0]):
    write_published(
        published=snakemake.input.published[0],
        qrels=snakemake.input.qrels,
        runs=snakemake.input.runs,
        evals=snakemake.input.evals,
        outputs=dict(snakemake.output.items()),
    )
