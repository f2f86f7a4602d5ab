"""Snakemake glue for rule publish_summary: irscore.integrity.publish."""

from irscore.integrity import publish
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    publish(snakemake.input.staging, "results/summary.md", snakemake.output[0])
