"""Snakemake glue for rule ideal_run: irscore.pipeline.ideal.write_ideal_run, between the check
of the qrels against the data manifest and the record of the run written."""

from irscore.pipeline.ideal import write_ideal_run
from irscore.pipeline.integrity import verify_inputs, write_record
from irscore.pipeline.logs import logging_to

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    write_ideal_run(snakemake.input.qrels, snakemake.output.run)
    write_record(snakemake.output.record, [], runs=[snakemake.output.run])
