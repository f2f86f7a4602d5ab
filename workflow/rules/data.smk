# Cranfield through ir_datasets (a local copy is verified and seeded), or a local
# collection folder (verified) -> results/data/. The data step is keyed on content: its
# params are the pinned sha256, not the local copy's or the folder's path, so an
# identical copy elsewhere (or none, once exported) re-runs nothing.


rule export_data:
    input:
        code=package_sources(
            "pipeline/data.py",
            "pipeline/exports.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
            "pipeline/logs.py",
        ),
    output:
        qrels="results/data/qrels.txt",
        queries="results/data/queries.tsv",
        docs="results/data/docs.jsonl",
        manifest="results/data/manifest.json",
    log:
        "results/logs/export_data.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        sha256=dataset_pins(),
    script:
        "../../scripts/export_data.py"
