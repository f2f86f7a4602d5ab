# Tables, curves and plots of the reported numbers, results/summary.md, and the
# captions of `snakemake --report results/report.html` (workflow/report/*.rst).


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


rule reference_table:
    input:
        evals=expand("results/eval/{run}.tsv", run=[*run_names(), IDEAL]),
        code=package_sources("tables.py", "evaluate.py", "conventions.py"),
    output:
        **table_outputs("reference", "1. Headline", "reference", table="reference"),
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


rule tiebreak_table:
    input:
        qrels="results/data/qrels.txt",
        runs=expand("results/runs/{run}.run", run=run_names()),
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources(
            "ties.py", "tables.py", "evaluate.py", "conventions.py", "trec.py"
        ),
    output:
        **table_outputs("tiebreak", "2. Ties", "tiebreak", table="tiebreak"),
    log:
        "results/logs/tiebreak_table.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        conventions=config["conventions"],
    script:
        "../../scripts/tiebreak_table.py"


rule curves:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources(
            "curves.py", "plots.py", "tables.py", "evaluate.py", "conventions.py"
        ),
    output:
        **curve_outputs(),
    log:
        "results/logs/curves.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        conventions=config["conventions"],
        dpi=config["plots"]["dpi"],
    script:
        "../../scripts/curves.py"


rule topic_example:
    input:
        qrels="results/data/qrels.txt",
        manifest="results/data/manifest.json",
        run=f"results/runs/{config['plots']['example']['run']}.run",
        eval=f"results/eval/{config['plots']['example']['run']}.tsv",
        code=package_sources(
            "curves.py",
            "plots.py",
            "tables.py",
            "evaluate.py",
            "conventions.py",
            "trec.py",
        ),
    output:
        **figure_outputs(
            "results/plots/topic_example",
            "3. Curves",
            "topic_example",
            figure="one topic",
        ),
    log:
        "results/logs/topic_example.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        topic=config["plots"]["example"]["topic"],
        conventions=config["conventions"],
        dpi=config["plots"]["dpi"],
    script:
        "../../scripts/topic_example.py"


rule pair_plot:
    input:
        x="results/eval/{x}.tsv",
        y="results/eval/{y}.tsv",
        code=package_sources("plots.py", "tables.py", "evaluate.py"),
    output:
        **figure_outputs(
            "results/plots/pair_{x}_vs_{y}",
            "4. Per-topic",
            "pair",
            figure="per-topic AP",
            pair="{x} vs {y}",
        ),
    log:
        "results/logs/pair_plot/{x}_vs_{y}.log",
    wildcard_constraints:
        x="|".join(map(re.escape, run_names())),
        y="|".join(map(re.escape, run_names())),
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        label_topics=config["plots"]["label_topics"],
        dpi=config["plots"]["dpi"],
    script:
        "../../scripts/pair_plot.py"


rule conventions_plot:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        code=package_sources(
            "plots.py", "audit.py", "tables.py", "evaluate.py", "conventions.py"
        ),
    output:
        **figure_outputs(
            "results/plots/conventions",
            "5. Conventions",
            "conventions",
            figure="convention audit",
        ),
    log:
        "results/logs/conventions_plot.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        labels=config["headline"],
        conventions=config["conventions"],
        dpi=config["plots"]["dpi"],
    script:
        "../../scripts/conventions_plot.py"


rule summary:
    input:
        qrels="results/data/qrels.txt",
        evals=expand("results/eval/{run}.tsv", run=[*run_names(), IDEAL]),
        crosschecks=expand("results/crosscheck/{run}.tsv", run=[*run_names(), IDEAL]),
        tiebreak="results/tables/tiebreak.md",
        curves=expand(
            "results/tables/curves_{interpolation}.md", interpolation=INTERPOLATIONS
        ),
        audit="results/audit/conventions.md",
        appendix=summary_appendix(),
        code=package_sources("summary.py", "tables.py", "ties.py", "evaluate.py"),
    output:
        report(
            "results/summary.md",
            caption="../report/summary.rst",
            category="6. Summary",
            labels={"file": "summary.md"},
        ),
    log:
        "results/logs/summary.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        columns=config["headline"],
        interpolations=list(INTERPOLATIONS),
    script:
        "../../scripts/summary.py"
