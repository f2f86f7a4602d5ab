"""Snakemake glue for rule topic_figures: irscore.report_figures.write_topic_figures."""

from irscore.logs import logging_to
from irscore.report_figures import write_topic_figures

with logging_to(snakemake.log[0]):
    write_topic_figures(
        qrels=snakemake.input.qrels,
        manifest=snakemake.input.manifest,
        example_run=snakemake.input.example_run,
        evals=snakemake.input.evals,
        outputs=dict(snakemake.output.items()),
        plot_settings=snakemake.params.plots,
        conventions=snakemake.params.conventions,
    )
