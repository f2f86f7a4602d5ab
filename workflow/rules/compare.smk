# What each convention changes across the runs (the convention audit).


rule convention_audit:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources("audit.py", "evaluate.py", "conventions.py"),
    output:
        md="results/audit/conventions.md",
        csv="results/audit/conventions.csv",
    log:
        "results/logs/convention_audit.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        labels=config["headline"],
        conventions=config["conventions"],
    script:
        "../../scripts/convention_audit.py"


rule compare:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources("audit.py", "stats.py", "evaluate.py", "conventions.py"),
    output:
        tests="results/compare/tests.tsv",
        flips="results/compare/flips.tsv",
        md="results/compare/flips.md",
    log:
        "results/logs/compare.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        conventions=config["conventions"],
        settings=config["compare"],
    script:
        "../../scripts/compare.py"
