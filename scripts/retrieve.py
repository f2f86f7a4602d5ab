"""Snakemake glue for rule retrieve: irscore.pipeline.retrieve.retrieve_to_files, between the
check of the exports against their manifest and the record of the run written."""

from irscore.pipeline.integrity import verify_inputs, write_record
from irscore.pipeline.logs import logging_to
from irscore.pipeline.retrieve import retrieve_to_files

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    retrieve_to_files(
        docs=snakemake.input.docs,
        queries=snakemake.input.queries,
        run=snakemake.output.run,
        manifest=snakemake.output.manifest,
        name=snakemake.wildcards.run,
        spec=snakemake.params.retriever,
        analyzer=snakemake.params.analyzer,
    )
    write_record(snakemake.output.record, [], runs=[snakemake.output.run])
