# What each convention changes across the runs (the convention audit).


rule convention_audit:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources("audit.py", "evaluate.py", "conventions.py"),
    output:
        md=report(
            "results/audit/conventions.md",
            caption="../report/audit.rst",
            category="7. Conventions and conclusions",
            labels={"table": "convention audit"},
        ),
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
        md=report(
            "results/compare/flips.md",
            caption="../report/flips.rst",
            category="7. Conventions and conclusions",
            labels={"table": "conclusions that flip"},
        ),
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
