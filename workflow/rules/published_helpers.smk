# Settings and helper functions of the published-figures rules (published.smk).
from irscore.published import load_published

PUBLISHED = load_published(config["published"]) if config.get("published") else None


def published_file():
    """The published figures file, or nothing when config `published:` is null."""
    return [config["published"]] if PUBLISHED else []


def published_runs():
    """The configured runs that the published figures name (the others show as missing)."""
    return [run for run in PUBLISHED.runs() if run in run_names()] if PUBLISHED else []


def ir_measures_runs():
    """The configured runs of experiments evaluated with ir_measures."""
    runs = PUBLISHED.ir_measures_runs() if PUBLISHED else {}
    return [run for run in runs if run in run_names()]


def published_targets():
    """The comparison and the ir_measures check, when figures are configured."""
    if not PUBLISHED:
        return []
    return expand(
        "results/published/{name}.{ext}",
        name=["comparison", "ir_measures"],
        ext=["md", "csv"],
    )


def summary_appendix():
    """Documents appended to results/summary.md: flipped conclusions, published figures."""
    published = ["results/published/comparison.md"] if PUBLISHED else []
    return ["results/compare/flips.md", *published]
