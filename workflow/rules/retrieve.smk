# One TREC run (and its manifest) per configured retriever.


rule retrieve:
    input:
        docs="results/data/docs.jsonl",
        queries="results/data/queries.tsv",
        code=retriever_sources,
    output:
        run="results/runs/{run}.run",
        manifest="results/runs/{run}.manifest.json",
    log:
        "results/logs/retrieve/{run}.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        retriever=retriever_config,
        analyzer=canonical(config["analyzer"]),
    script:
        "../../scripts/retrieve.py"
