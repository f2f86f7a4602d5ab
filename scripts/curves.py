"""Snakemake glue for rule curves: irscore.curves.write_curves."""

from irscore.curves import write_curves
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    write_curves(
        snakemake.input.evals,
        snakemake.params.conventions,
        dict(snakemake.output.items()),
        dpi=snakemake.params.dpi,
    )
