"""Snakemake glue for rule external_run: irscore.trec.copy_checked_run."""

from irscore.logs import logging_to
from irscore.trec import copy_checked_run

with logging_to(snakemake.log[0]):
    copy_checked_run(snakemake.input[0], snakemake.output[0])
