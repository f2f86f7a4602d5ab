"""Snakemake glue for rule interleaving: irscore.report.workbench.interleaving_job, after checking
its inputs against their records (irscore.pipeline.integrity)."""

from pathlib import Path

from irscore.pipeline.integrity import verify_inputs
from irscore.pipeline.logs import logging_to
from irscore.report.workbench import interleaving_job

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    interleaving_job(
        qrels=snakemake.input.qrels,
        runs={Path(path).stem: path for path in snakemake.input.runs},
        evals=snakemake.input.evals,
        conventions=snakemake.params.conventions,
        settings=snakemake.params.settings,
        outputs=dict(snakemake.output.items()),
    )
