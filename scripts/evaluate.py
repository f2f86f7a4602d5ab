"""Snakemake glue for rule evaluate: irscore.pipeline.crosscheck.evaluate_and_crosscheck_files,
after checking the run and the qrels against their records (and logging topics the run
and the qrels do not share), then the record of the tables written."""

import logging

from irscore.pipeline.crosscheck import evaluate_and_crosscheck_files
from irscore.pipeline.integrity import topic_coverage, verify_inputs, write_record
from irscore.pipeline.logs import logging_to

with logging_to(snakemake.log[0]):
    verify_inputs(snakemake.input, snakemake.input.records)
    coverage = topic_coverage(snakemake.input.qrels, snakemake.input.run)
    if coverage:
        logging.getLogger("irscore").warning(
            "%s %s: not comparable with runs over the judged topics",
            snakemake.input.run,
            coverage,
        )
    evaluate_and_crosscheck_files(
        snakemake.input.qrels,
        snakemake.input.run,
        snakemake.output.eval,
        snakemake.output.crosscheck,
        run_name=snakemake.wildcards.run,
        conventions=snakemake.params.conventions,
        measures_config=snakemake.params.measures,
    )
    write_record(snakemake.output.record, [snakemake.output.eval, snakemake.output.crosscheck])
