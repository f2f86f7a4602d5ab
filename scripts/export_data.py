"""Snakemake glue for rule export_data: irscore.data.export_cranfield."""

from irscore.data import export_cranfield
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    export_cranfield(
        qrels=snakemake.output.qrels,
        queries=snakemake.output.queries,
        docs=snakemake.output.docs,
        manifest=snakemake.output.manifest,
        cranfield_dir=snakemake.params.cranfield_dir,
        sha256=snakemake.params.sha256,
    )
