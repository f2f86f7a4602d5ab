"""Snakemake glue for rule pair_plot: irscore.plots.write_pair_plot."""

from irscore.logs import logging_to
from irscore.plots import write_pair_plot

with logging_to(snakemake.log[0]):
    write_pair_plot(
        snakemake.input.x,
        snakemake.input.y,
        snakemake.params.label_topics,
        snakemake.output.png,
        snakemake.output.svg,
        dpi=snakemake.params.dpi,
    )
