"""Snakemake glue for rule retrieve: irscore.retrieve.retrieve_to_files."""

from irscore.logs import logging_to
from irscore.retrieve import retrieve_to_files

with logging_to(snakemake.log[0]):
    retrieve_to_files(
        docs=snakemake.input.docs,
        queries=snakemake.input.queries,
        run=snakemake.output.run,
        manifest=snakemake.output.manifest,
        name=snakemake.wildcards.run,
        spec=snakemake.params.retriever,
        analyzer=snakemake.params.analyzer,
    )
