"""Snakemake glue for rule conventions_plot: irscore.plots.write_conventions_plot."""

from irscore.logs import logging_to
from irscore.plots import write_conventions_plot

with logging_to(snakemake.log[0]):
    write_conventions_plot(
        snakemake.input.evals,
        snakemake.params.labels,
        snakemake.params.conventions,
        snakemake.output.png,
        snakemake.output.svg,
        dpi=snakemake.params.dpi,
    )
