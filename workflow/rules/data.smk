# Cranfield through ir_datasets -> results/data/ (a local copy is verified and seeded).
# The data step is keyed on content: its params are the pinned sha256, not the local
# copy's path, so an identical copy elsewhere (or none, once exported) re-runs nothing.


rule export_data:
    input:
        code=package_sources("data.py", "trec.py", "logs.py"),
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
    params:
        sha256=canonical(config["cranfield_sha256"]),
    script:
        "../../scripts/export_data.py"
