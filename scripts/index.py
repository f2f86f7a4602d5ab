"""Snakemake glue for rule index: irscore.shards.build_index_file."""

from irscore.logs import logging_to
from irscore.shards import build_index_file

with logging_to(snakemake.log[0]):
    build_index_file(
        docs=snakemake.input.docs,
        analyzer=snakemake.params.analyzer,
        index=snakemake.output[0],
    )
