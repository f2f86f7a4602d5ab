"""Snakemake glue for rule merge_shards: irscore.shards.merge_shards_to_files."""

from irscore.logs import logging_to
from irscore.shards import merge_shards_to_files

with logging_to(snakemake.log[0]):
    merge_shards_to_files(
        shard_runs=snakemake.input.runs,
        summaries=snakemake.input.summaries,
        queries=snakemake.input.queries,
        run=snakemake.output.run,
        manifest=snakemake.output.manifest,
        name=snakemake.wildcards.run,
        spec=snakemake.params.retriever,
        analyzer=snakemake.params.analyzer,
    )
