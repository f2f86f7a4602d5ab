# Tables of the reported numbers and results/summary.md.


rule reference_table:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources("tables.py", "evaluate.py"),
    output:
        md="results/tables/reference.md",
        csv="results/tables/reference.csv",
        tex="results/tables/reference.tex",
    log:
        "results/logs/reference_table.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        columns=config["headline"],
    script:
        "../../scripts/reference_table.py"


rule summary:
    input:
        qrels="results/data/qrels.txt",
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        crosschecks=expand("results/crosscheck/{run}.tsv", run=run_names()),
        code=package_sources("summary.py", "tables.py", "evaluate.py"),
    output:
        "results/summary.md",
    log:
        "results/logs/summary.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        columns=config["headline"],
    script:
        "../../scripts/summary.py"
