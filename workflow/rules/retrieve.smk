# One TREC run (with its manifest and record) per configured retriever; `runs:` entries with
# a path are copied in, so every evaluated run lives under results/runs/.


rule retrieve:
    input:
        docs="results/data/docs.jsonl",
        queries="results/data/queries.tsv",
        records="results/data/manifest.json",
        code=retriever_sources,
    output:
        run="results/runs/{run}.run",
        manifest="results/runs/{run}.manifest.json",
        record="results/records/runs/{run}.json",
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
        runtime=30,
    params:
        retriever=retriever_config,
        analyzer=retriever_analyzer,
    script:
        "../../scripts/retrieve.py"


# A retriever with `shards: N`: the index built once per analyzer, N jobs each
# retrieving a contiguous block of the queries, and their lines concatenated.
rule index:
    input:
        docs="results/data/docs.jsonl",
        records="results/data/manifest.json",
        code=index_sources,
    output:
        index="results/index/{analyzer}.pickle",
        record="results/records/index/{analyzer}.json",
    log:
        "results/logs/index/{analyzer}.log",
    wildcard_constraints:
        analyzer=INDEXED_ANALYZERS,
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        analyzer=index_analyzer,
    script:
        "../../scripts/index.py"


rule retrieve_shard:
    input:
        index=shard_index,
        queries="results/data/queries.tsv",
        records=shard_index_records,
        code=shard_sources,
    output:
        run="results/shards/{run}/{shard}.run",
        summary="results/shards/{run}/{shard}.json",
        record="results/records/shards/{run}/{shard}.json",
    log:
        "results/logs/retrieve_shard/{run}/{shard}.log",
    wildcard_constraints:
        run=SHARDED_NAMES,
        shard="[0-9]+",
    priority: plotted_first
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        retriever=retriever_config,
        analyzer=retriever_analyzer,
    script:
        "../../scripts/retrieve_shard.py"


rule merge_shards:
    input:
        runs=shard_files("run"),
        summaries=shard_files("json"),
        queries="results/data/queries.tsv",
        records=shard_records,
        code=shard_sources,
    output:
        run="results/runs/{run}.run",
        manifest="results/runs/{run}.manifest.json",
        record="results/records/runs/{run}.json",
    log:
        "results/logs/merge_shards/{run}.log",
    wildcard_constraints:
        run=SHARDED_NAMES,
    priority: plotted_first
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        retriever=retriever_config,
        analyzer=retriever_analyzer,
    script:
        "../../scripts/merge_shards.py"


rule external_run:
    input:
        external_run_path,
    output:
        run="results/runs/{run}.run",
        record="results/records/runs/{run}.json",
    log:
        "results/logs/external_run/{run}.log",
    wildcard_constraints:
        run=EXTERNAL_NAMES,
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../../scripts/external_run.py"
