"""Snakemake glue for rule retrieve_shard: irscore.shards.retrieve_shard_to_files."""

from irscore.logs import logging_to
from irscore.shards import retrieve_shard_to_files

with logging_to(snakemake.log[0]):
    retrieve_shard_to_files(
        index=snakemake.input.index,
        queries=snakemake.input.queries,
        run=snakemake.output.run,
        summary=snakemake.output.summary,
        name=snakemake.wildcards.run,
        spec=snakemake.params.retriever,
        analyzer=snakemake.params.analyzer,
        shard=int(snakemake.wildcards.shard),
    )
