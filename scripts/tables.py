"""Snakemake glue for rule tables: irscore.report_tables.write_tables."""

from irscore.logs import logging_to
from irscore.report_tables import write_tables

with logging_to(snakemake.log[0]):
    write_tables(
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
    )
