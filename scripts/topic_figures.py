"""Snakemake glue for rule topic_figures: irscore.report.pipeline.topic_figures_job, after checking
its inputs against their records (irscore.pipeline.integrity)."""

from irscore.pipeline.integrity import verify_inputs
from irscore.pipeline.logs import logging_to
from irscore.report.pipeline import topic_figures_job

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    topic_figures_job(
        qrels=snakemake.input.qrels,
        manifest=snakemake.input.manifest,
        example_run=snakemake.input.example_run,
        evals=snakemake.input.evals,
        outputs=dict(snakemake.output.items()),
        plot_settings=snakemake.params.plots,
        conventions=snakemake.params.conventions,
        styles=snakemake.params.styles,
    )
