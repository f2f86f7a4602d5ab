"""Snakemake glue for rule index: irscore.pipeline.shards.build_index_file, between the check of
the documents against the data manifest and the record of the index written."""

from irscore.pipeline.integrity import verify_inputs, write_record
from irscore.pipeline.logs import logging_to
from irscore.pipeline.shards import build_index_file

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    build_index_file(
        docs=snakemake.input.docs,
        analyzer=snakemake.params.analyzer,
        index=snakemake.output.index,
    )
    write_record(snakemake.output.record, [snakemake.output.index])
