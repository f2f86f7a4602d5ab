"""Snakemake glue for rule export_data: pipeline.data.export_cranfield, _local or _ir_datasets."""

from irscore.pipeline.data import export_cranfield, export_ir_datasets, export_local, local_copy
from irscore.pipeline.logs import logging_to

outputs = {
    "qrels": snakemake.output.qrels,
    "queries": snakemake.output.queries,
    "docs": snakemake.output.docs,
    "manifest": snakemake.output.manifest,
}
dataset = snakemake.config["dataset"]
with logging_to(snakemake.log[0]):
    if isinstance(dataset, dict) and "ir_datasets" in dataset:
        chosen = snakemake.params.sha256
        export_ir_datasets(chosen["ir_datasets"], chosen["query_field"], **outputs)
    elif isinstance(dataset, dict):
        # the folder is read here, not a param: moving an identical folder re-runs nothing
        export_local(dataset["folder"], snakemake.params.sha256["local"], **outputs)
    else:
        export_cranfield(
            **outputs,
            # read here, not a param: the path of an identical copy must not re-run the step
            cranfield_dir=local_copy(snakemake.config.get("cranfield_dir")),
            sha256=snakemake.params.sha256,
        )
