# Figures that texts published for Cranfield beside the regenerated ones (config
# `published:`), and the lab's own evaluation call (ir_measures) beside irscore's.


include: "published_helpers.smk"


rule published:
    input:
        published=published_file(),
        qrels="results/data/qrels.txt",
        runs=expand("results/runs/{run}.run", run=ir_measures_runs()),
        evals=expand("results/eval/{run}.tsv", run=published_runs()),
        code=package_sources(
            "published.py", "crosscheck.py", "evaluate.py", "tables.py", "trec.py"
        ),
    output:
        comparison_md=report(
            "results/published/comparison.md",
            caption="../report/published.rst",
            category="8. Published figures",
            labels={"table": "published vs regenerated"},
        ),
        comparison_csv="results/published/comparison.csv",
        ir_measures_md="results/published/ir_measures.md",
        ir_measures_csv="results/published/ir_measures.csv",
    log:
        "results/logs/published.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    script:
        "../../scripts/published.py"
