# The ideal run, then the reported numbers in three jobs that each read their inputs
# once: every table with results/summary.md, the figures of all runs, and the figures
# of single topics. Captions for `snakemake --report` are in workflow/report/*.rst.


include: "published_helpers.smk"
include: "report_helpers.smk"


report: "../report/workflow.rst"


rule ideal_run:
    input:
        qrels="results/data/qrels.txt",
        code=package_sources("ideal.py", "trec.py"),
    output:
        f"results/runs/{IDEAL}.run",
    log:
        "results/logs/ideal_run.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    script:
        "../../scripts/ideal_run.py"


# The ideal run goes through the very rule that scores and cross-checks every run.
use rule evaluate as evaluate_ideal with:
    wildcard_constraints:
        run=IDEAL,


rule tables:
    input:
        qrels="results/data/qrels.txt",
        runs=expand("results/runs/{run}.run", run=run_names()),
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        ideal=f"results/eval/{IDEAL}.tsv",
        crosschecks=expand("results/crosscheck/{run}.tsv", run=[*run_names(), IDEAL]),
        published=published_file(),
        ir_measures_runs=expand("results/runs/{run}.run", run=ir_measures_runs()),
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "results.py",
            "tables.py",
            "ties.py",
            "curves.py",
            "audit.py",
            "stats.py",
            "published.py",
            "crosscheck.py",
            "summary.py",
            "evaluate.py",
            "conventions.py",
            "trec.py",
        ),
    output:
        **tables_outputs(),
    log:
        "results/logs/tables.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        headline=config["headline"],
        conventions=config["conventions"],
        compare=config["compare"],
    script:
        "../../scripts/tables.py"


rule figures:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "report/plots.py",
            "report/styles.py",
            "results.py",
            "curves.py",
            "tables.py",
            "conventions.py",
            "evaluate.py",
        ),
    output:
        **figures_outputs(),
    log:
        "results/logs/figures.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        labels=config["headline"],
        conventions=config["conventions"],
        dpi=config["plots"]["dpi"],
    script:
        "../../scripts/figures.py"


# Ready once the runs it names are scored: run it then, beside the other runs' jobs, so
# that the tables and the figures of all runs are the only work left at the end.
rule topic_figures:
    input:
        qrels="results/data/qrels.txt",
        manifest="results/data/manifest.json",
        example_run=f"results/runs/{config['plots']['example']['run']}.run",
        evals=expand("results/eval/{run}.tsv", run=plotted_runs()),
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "report/plots.py",
            "results.py",
            "curves.py",
            "tables.py",
            "data.py",
            "trec.py",
        ),
    output:
        **topic_figures_outputs(),
    log:
        "results/logs/topic_figures.log",
    priority: 1
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        plots=config["plots"],
        conventions=config["conventions"],
        styles=plotted_styles(),
    script:
        "../../scripts/topic_figures.py"
