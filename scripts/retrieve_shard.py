"""Snakemake glue for rule retrieve_shard: irscore.pipeline.shards.retrieve_shard_to_files, between
the check of the queries and the index against their records and the record of the
shard written."""

from irscore.pipeline.integrity import verify_inputs, write_record
from irscore.pipeline.logs import logging_to
from irscore.pipeline.shards import retrieve_shard_to_files

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
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
    write_record(snakemake.output.record, [snakemake.output.run, snakemake.output.summary])
