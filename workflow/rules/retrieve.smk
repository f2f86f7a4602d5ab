# One TREC run (and its manifest) per configured retriever; `runs:` entries with
# a path are copied in, so every evaluated run lives under results/runs/.


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
    wildcard_constraints:
        run=RETRIEVER_NAMES,
    priority: plotted_first
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        retriever=retriever_config,
        analyzer=retriever_analyzer,
    script:
        "../../scripts/retrieve.py"


rule external_run:
    input:
        external_run_path,
    output:
        "results/runs/{run}.run",
    log:
        "results/logs/external_run/{run}.log",
    wildcard_constraints:
        run=EXTERNAL_NAMES,
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    script:
        "../../scripts/external_run.py"
