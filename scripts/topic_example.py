"""Snakemake glue for rule topic_example: irscore.curves.write_topic_example."""

from irscore.curves import write_topic_example
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    write_topic_example(
        snakemake.input.qrels,
        snakemake.input.run,
        snakemake.input.eval,
        snakemake.input.manifest,
        snakemake.params.topic,
        snakemake.params.conventions,
        snakemake.output.png,
        snakemake.output.svg,
        dpi=snakemake.params.dpi,
    )
