"""Snakemake glue for rule systems_table: irscore.report.workbench.systems_job, after checking
its inputs against their records (irscore.pipeline.integrity)."""

from irscore.pipeline.integrity import verify_inputs
from irscore.pipeline.logs import logging_to
from irscore.report.workbench import systems_job

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    systems_job(
        evals=snakemake.input.evals,
        conventions=snakemake.params.conventions,
        settings=snakemake.params.settings,
        compare=snakemake.params.compare,
        outputs=dict(snakemake.output.items()),
    )
