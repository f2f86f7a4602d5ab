"""Snakemake glue for rule export_data: irscore.data.export_cranfield."""

from irscore.data import export_cranfield, local_copy
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    export_cranfield(
        qrels=snakemake.output.qrels,
        queries=snakemake.output.queries,
        docs=snakemake.output.docs,
        manifest=snakemake.output.manifest,
        # read here, not a param: the path of an identical copy must not re-run the step
        cranfield_dir=local_copy(snakemake.config.get("cranfield_dir")),
        sha256=snakemake.params.sha256,
    )
