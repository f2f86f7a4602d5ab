"""Snakemake glue for rule figures: irscore.report.pipeline.figures_job, after checking
its inputs against their records (irscore.pipeline.integrity)."""

from irscore.pipeline.integrity import verify_inputs
from irscore.pipeline.logs import logging_to
from irscore.report.pipeline import figures_job

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    figures_job(
        evals=snakemake.input.evals,
        outputs=dict(snakemake.output.items()),
        labels=snakemake.params.labels,
        conventions=snakemake.params.conventions,
        dpi=snakemake.params.dpi,
    )
