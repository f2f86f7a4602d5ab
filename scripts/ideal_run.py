"""Snakemake glue for rule ideal_run: irscore.ideal.write_ideal_run."""

from irscore.ideal import write_ideal_run
from irscore.logs import logging_to

with logging_to(snakemake.log[0]):
    write_ideal_run(snakemake.input.qrels, snakemake.output[0])
