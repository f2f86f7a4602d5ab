"""Snakemake glue for rule external_run: irscore.engine.reading.trec.copy_checked_run, then
the record of the copy."""

from irscore.engine.reading.trec import copy_checked_run
from irscore.pipeline.integrity import write_record
from irscore.pipeline.logs import logging_to

with logging_to(snakemake.log[0]):
    copy_checked_run(snakemake.input[0], snakemake.output.run)
    write_record(snakemake.output.record, [], runs=[snakemake.output.run])
