"""Snakemake glue for rule publish_summary: irscore.pipeline.integrity.publish."""

from irscore.pipeline.integrity import publish
from irscore.pipeline.logs import logging_to

with logging_to(snakemake.log[0]):
    publish(snakemake.input.staging, "results/summary.md", snakemake.output[0])
