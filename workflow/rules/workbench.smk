# The workbench's sections of the report: the configured runs in one table against the
# baseline (config `systems:`), and interleaving experiments for the configured pairs
# (config `interleaving:`), their verdicts beside the offline measure's.


rule systems_table:
    input:
        evals=expand("results/eval/{run}.tsv", run=run_names()),
        records=eval_records(run_names()),
        code=package_sources(
            "report/workbench.py",
            "report/pages.py",
            "pipeline/integrity.py",
            "analysis/systems_table.py",
            "analysis/audit.py",
            "analysis/stats.py",
            "analysis/corrections.py",
            "analysis/results.py",
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
        **systems_outputs(),
    log:
        "results/logs/systems_table.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        conventions=config["conventions"],
        settings=config["systems"],
        compare=config["compare"],
    script:
        "../../scripts/systems_table.py"


rule interleaving:
    input:
        qrels="results/data/qrels.txt",
        runs=interleaved_runs("results/runs/{run}.run"),
        evals=interleaved_runs("results/eval/{run}.tsv"),
        records=[
            "results/data/manifest.json",
            *run_records(interleaved_runs("{run}")),
            *eval_records(interleaved_runs("{run}")),
        ],
        code=package_sources(
            "report/workbench.py",
            "report/pages.py",
            "pipeline/integrity.py",
            "report/plots.py",
            "report/workbench_plots.py",
            "workbench/interleave.py",
            "analysis/audit.py",
            "analysis/stats.py",
            "analysis/corrections.py",
            "analysis/results.py",
            "engine/evaluate.py",
            "engine/ranking/prepare.py",
            "engine/ranking/rank.py",
            "engine/output/long_table.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
        ),
    output:
        **interleaving_outputs(),
    log:
        "results/logs/interleaving.log",
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        conventions=config["conventions"],
        settings=interleaving_settings(),
    script:
        "../../scripts/interleaving.py"
