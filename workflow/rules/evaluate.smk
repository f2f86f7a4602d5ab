# Per-topic measures under every convention, and the cross-check of the reference
# convention against pytrec_eval, once the run and the qrels match their records: one
# job per run, since a Python process with
# pandas costs about a second to start and both steps read the same files.


rule evaluate:
    input:
        qrels="results/data/qrels.txt",
        run="results/runs/{run}.run",
        records=evaluate_records,
        code=package_sources(
            "pipeline/crosscheck.py",
            "engine/evaluate.py",
            "engine/ranking/prepare.py",
            "engine/ranking/rank.py",
            "engine/output/long_table.py",
            "engine/measures",
            "engine/ranking/conventions.py",
            "engine/reading/trec.py",
            "engine/reading/columns.py",
            "engine/reading/careful_reader.py",
            "engine/system/arrays.py",
        ),
    output:
        eval="results/eval/{run}.tsv",
        crosscheck="results/crosscheck/{run}.tsv",
        record="results/records/eval/{run}.json",
    log:
        "results/logs/evaluate/{run}.log",
    priority: plotted_first
    conda:
        "../envs/irscore.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        conventions=canonical(config["conventions"]),
        measures=canonical(config["measures"]),
    script:
        "../../scripts/evaluate.py"
