"""Snakemake glue for rule external_run: irscore.trec.copy_checked_run, then the record
of the copy."""

from irscore.integrity import write_record
from irscore.logs import logging_to
from irscore.trec import copy_checked_run

with logging_to(snakemake.log[0]):
    copy_checked_run(snakemake.input[0], snakemake.output.run)
    write_record(snakemake.output.record, [], runs=[snakemake.output.run])
