# The ideal run, then the reported numbers in three jobs that each read their inputs
# once: every table with the summary, the figures of all runs, and the figures of
# single topics; then the committed results/summary.md is replaced, only once all three
# succeeded. Captions for `snakemake --report` are in workflow/report/*.rst.


include: "published_helpers.smk"
include: "report_helpers.smk"


report: "../report/workflow.rst"


rule ideal_run:
    input:
        qrels="results/data/qrels.txt",
        records="results/data/manifest.json",
        code=package_sources(
            "pipeline/ideal.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
        ),
    output:
        run=f"results/runs/{IDEAL}.run",
        record=run_record(IDEAL),
    log:
        "results/logs/ideal_run.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
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
        records=[
            "results/data/manifest.json",
            *run_records(run_names()),
            *eval_records([*run_names(), IDEAL]),
        ],
        sections=workbench_sections(),
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "report/pages.py",
            "analysis/rank_correlation.py",
            "analysis/results.py",
            "report/tables.py",
            "analysis/ties.py",
            "analysis/curves.py",
            "analysis/audit.py",
            "analysis/stats.py",
            "analysis/corrections.py",
            "analysis/published.py",
            "report/published.py",
            "pipeline/crosscheck.py",
            "report/summary.py",
            "engine/evaluate.py",
            "engine/ranking/prepare.py",
            "engine/ranking/rank.py",
            "engine/output/long_table.py",
            "engine/ranking/conventions.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
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
        runtime=30,
    params:
        headline=config["headline"],
        conventions=config["conventions"],
        compare=config["compare"],
    script:
        "../../scripts/tables.py"


rule figures:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        records=eval_records(run_names()),
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "report/plots.py",
            "report/convention_plots.py",
            "report/styles.py",
            "analysis/results.py",
            "analysis/curves.py",
            "report/tables.py",
            "engine/ranking/conventions.py",
            "engine/evaluate.py",
            "engine/ranking/prepare.py",
            "engine/ranking/rank.py",
            "engine/output/long_table.py",
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
        runtime=30,
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
        records=[
            "results/data/manifest.json",
            *run_records([config["plots"]["example"]["run"]]),
            *eval_records(plotted_runs()),
        ],
        code=package_sources(
            "report/__init__.py",
            "report/pipeline.py",
            "report/layout.py",
            "report/plots.py",
            "analysis/results.py",
            "analysis/curves.py",
            "engine/ranking/prepare.py",
            "engine/ranking/rank.py",
            "report/tables.py",
            "pipeline/data.py",
            "pipeline/exports.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
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
        runtime=30,
    params:
        plots=config["plots"],
        conventions=config["conventions"],
        styles=plotted_styles(),
    script:
        "../../scripts/topic_figures.py"


# results/summary.md is committed, so no job that can fail has it as an output (Snakemake
# deletes a failed job's outputs): the tables job writes results/staging/summary.md, and
# this step, which needs every report artefact, copies it over in one rename.
rule publish_summary:
    input:
        staging=tables_outputs()["summary_md"],
        artefacts=report_targets(),
        code=package_sources(
            "pipeline/integrity.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
        ),
    output:
        "results/records/summary.json",
    log:
        "results/logs/publish_summary.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    script:
        "../../scripts/publish_summary.py"
