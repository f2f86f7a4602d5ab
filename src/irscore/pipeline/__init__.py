"""The pipeline: what the workflow's scripts call to make runs and check them.

The collection (ir_datasets, local copies, folders), the analyzers that turn text
into terms, the retrieval models (`retrievers/`, one per file), retrieval and its
shards, the ideal run, the integrity records of each step's outputs, the
cross-check against trec_eval and the `make results` runner. Its modules import
the engine and each other, nothing above. This package imports nothing itself.
"""
