# Settings and helper functions of the published figures (config `published:`), which
# the tables job compares with the regenerated ones.
from irscore.analysis.published import load_published

# The published figures are Cranfield's: another collection has nothing to compare them to.
PUBLISHED = (
    load_published(config["published"])
    if config.get("published") and config["dataset"] == "cranfield"
    else None
)


def published_file():
    """The published figures file, or nothing when config `published:` is null."""
    return [config["published"]] if PUBLISHED else []


def ir_measures_runs():
    """The configured runs of experiments evaluated with ir_measures."""
    runs = PUBLISHED.ir_measures_runs() if PUBLISHED else {}
    return [run for run in runs if run in run_names()]
