"""Snakemake glue for rule tables: irscore.report.pipeline.tables_job, after checking
its inputs against their records (irscore.pipeline.integrity)."""

from irscore.pipeline.integrity import verify_inputs
from irscore.pipeline.logs import logging_to
from irscore.report.pipeline import tables_job

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    tables_job(
        qrels=snakemake.input.qrels,
        runs=snakemake.input.runs,
        evals=snakemake.input.evals,
        ideal=snakemake.input.ideal,
        crosschecks=snakemake.input.crosschecks,
        outputs=dict(snakemake.output.items()),
        headline=snakemake.params.headline,
        conventions=snakemake.params.conventions,
        compare=snakemake.params.compare,
        figures=snakemake.input.published[0] if snakemake.input.published else None,
        ir_measures_runs=snakemake.input.ir_measures_runs,
        sections=snakemake.input.sections,
    )
