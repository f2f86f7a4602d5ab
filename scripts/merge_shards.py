"""Snakemake glue for rule merge_shards: irscore.pipeline.shards.merge_shards_to_files, between the
check of the shards and the queries against their records and the record of the run."""

from irscore.pipeline.integrity import verify_inputs, write_record
from irscore.pipeline.logs import logging_to
from irscore.pipeline.shards import merge_shards_to_files

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
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
    write_record(snakemake.output.record, [], runs=[snakemake.output.run])
