"""Snakemake glue for rule figures: irscore.report_figures.write_figures."""

from irscore.logs import logging_to
from irscore.report_figures import write_figures

with logging_to(snakemake.log[0]):
    write_figures(
        evals=snakemake.input.evals,
        outputs=dict(snakemake.output.items()),
        labels=snakemake.params.labels,
        conventions=snakemake.params.conventions,
        dpi=snakemake.params.dpi,
    )
