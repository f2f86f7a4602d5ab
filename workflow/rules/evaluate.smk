# Per-topic measures under every convention (one job per run), and the
# cross-check of the reference convention against pytrec_eval.


rule evaluate:
    input:
        qrels="results/data/qrels.txt",
        run="results/runs/{run}.run",
        code=package_sources("evaluate.py", "measures.py", "conventions.py", "trec.py"),
    output:
        "results/eval/{run}.tsv",
    log:
        "results/logs/evaluate/{run}.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        conventions=canonical(config["conventions"]),
        measures=canonical(config["measures"]),
    script:
        "../../scripts/evaluate.py"


rule crosscheck:
    input:
        qrels="results/data/qrels.txt",
        run="results/runs/{run}.run",
        code=package_sources("crosscheck.py", "evaluate.py", "measures.py", "trec.py"),
    output:
        "results/crosscheck/{run}.tsv",
    log:
        "results/logs/crosscheck/{run}.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        measures=canonical(config["measures"]),
    script:
        "../../scripts/crosscheck.py"
