"""One resolver for measure names: every name `irscore measures` lists is taken by the
command line, the API, the workflow's config and the page's measure box, with the same
message where it is refused, and a refused name is never offered as its own correction."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
import warnings

import pytest
from cli_calls import called as cli
from web_server import serving

import irscore
from irscore.engine.measures import MeasureError
from irscore.engine.measures.groups import accepted, config_groups, plan
from irscore.engine.measures.registry import FAMILIES
from irscore.engine.output.catalogue import examples

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN = "1 Q0 b 1 0.9 A\n1 Q0 a 2 0.5 A\n1 Q0 c 3 0.4 A\n2 Q0 e 1 0.9 A\n2 Q0 d 2 0.2 A\n"
NAMES = [name for _, name in examples()]
# judgments other than a qrels: the CLI's -R, which the API and the config do not take
OTHER_JUDGMENTS = [name for name in NAMES if not accepted(name)]


def in_the_workflow(name: str) -> bool:
    """False for what the workflow's long table cannot hold: text, subtopics' measures."""
    families = set().union(*(g.spec.families for g in plan([name])))
    return not any(FAMILIES[f].text or FAMILIES[f].judgments != "qrels" for f in families)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("surfaces")
    (folder / "qrels").write_text(QRELS)
    (folder / "run").write_text(RUN)
    return str(folder / "qrels"), str(folder / "run")


@pytest.fixture(scope="module")
def server():
    with serving() as (url, _):
        yield url


def page(url: str, name: str) -> dict:
    """What the page's measure box is told about `name` (the server's check)."""
    query = urllib.parse.urlencode({"metric": name})
    address = f"{url.rstrip('/')}/api/measure?{query}"
    with urllib.request.urlopen(address, timeout=60) as response:
        return json.loads(response.read())


def api_error(name: str, files) -> str | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            irscore.evaluate(*files, measures=[name])
        except MeasureError as err:
            return str(err)
    return None


def config_error(name: str) -> str | None:
    try:
        config_groups({"names": [name]})
    except MeasureError as err:
        return str(err)
    return None


def test_the_listing_has_every_kind_of_name():
    assert {"P_10", "P.5,10", "nDCG@10", "P(rel=2)@10", "ndcg_burges@10", "mrr@10-l2"} <= set(NAMES)
    assert len(OTHER_JUDGMENTS) < len(NAMES) // 4
    assert not in_the_workflow("relstring.10") and not in_the_workflow("alpha_ndcg_10")


def test_every_listed_name_is_taken_by_every_surface(files, server):
    for name in NAMES:
        if name in OTHER_JUDGMENTS:
            continue
        status, _, err = cli("evaluate", "-m", name, *files)
        assert status == 0, (name, err)
        assert api_error(name, files) is None, name
        assert page(server, name) == {"ok": name}
        refused = config_error(name)
        if in_the_workflow(name):
            assert refused is None, (name, refused)
        else:
            assert refused and refused.startswith("measures: "), (name, refused)


def test_names_of_other_judgments_are_taken_with_their_judgments(files, tmp_path):
    prefs = tmp_path / "prefs"
    prefs.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n")  # a qrels read as preferences
    for name in OTHER_JUDGMENTS:
        form = "qrels_jg" if "avgjg" in name and not name.startswith("prefs") else "qrels_prefs"
        status, _, err = cli("evaluate", "-R", form, "-m", name, str(prefs), files[1])
        assert status == 0, (name, err)


@pytest.mark.parametrize(
    "name",
    [
        "mapp",
        "P_10x",
        "ndcg_cut_1x5",
        "iprec_at_recall_0.55",
        "nDCG10@",
        "prefs_simp",
        "ndcg_cut_gains",
    ],
)
def test_a_refused_name_gets_one_message_everywhere(name, files, server):
    """The same message on the four surfaces (the config's and the page's say where)."""
    status, _, err = cli("evaluate", "-m", name, *files)
    message = err.removeprefix("irscore: error: ").rstrip("\n")
    assert status == 2 and "\n" not in message
    assert api_error(name, files) == message
    assert config_error(name) == message
    assert page(server, name)["error"]["message"] == f"metric: {message}"


@pytest.mark.parametrize(
    "name",
    ["P_10", "ndcg_cut_15", "P_10x", "ndcg_cut_1x5", "mapp", "recall_7x", "RR@", "nDCG10@"],
)
def test_a_close_name_offered_is_taken_and_never_the_name_itself(name):
    try:
        plan([name], trec_eval_requests=True)
    except MeasureError as err:
        offered = re.findall(r"(?:close names|syntax): ([^;(]*)", str(err))
        close = [n.strip() for part in offered for n in part.split(", ")]
        assert close and name not in close
        assert all(accepted(n) for n in close), close
    else:  # `-m P_10` and `-m ndcg_cut_15` were refused, with themselves offered
        assert name in ("P_10", "ndcg_cut_15")


def test_printed_names_on_the_command_line_are_the_api_s(files):
    status, out, _ = cli("evaluate", "-m", "P_10", "-m", "ndcg_cut_15", "-q", *files)
    assert status == 0
    table = irscore.evaluate(*files, measures=["P_10", "ndcg_cut_15"])
    lines = [f"{m:<22s}\t{t}\t{v:6.4f}" for m, t, v in table[["measure", "topic", "value"]].values]
    assert sorted(out.splitlines()) == sorted(lines)


def test_under_other_judgments_only_their_names_are_offered():
    """-R prefs: the peers' names (a qrels's) and map are refused, so never offered."""
    with pytest.raises(MeasureError) as err:
        plan(["mapp"], True, judgments="prefs")
    assert str(err.value) == "unknown measure 'mapp'"
    with pytest.raises(MeasureError) as err:
        plan(["prefs_simpp"], True, judgments="prefs")
    assert "close names: prefs_simp," in str(err.value)
    status, _, err_text = cli("evaluate", "-R", "prefs", "-m", "nDCG@10", "q", "r")
    assert status == 2 and err_text == (
        "irscore: error: nDCG@10: ir_measures and ranx names are computed from a qrels, "
        "not from prefs judgments\n"
    )


def test_the_workflow_reads_its_config_s_names_with_the_resolver(tmp_path):
    """A name compare: or systems: tests is refused before any job, as -m refuses it."""
    import yaml
    from test_workflow import collection_workflow, run_snakemake

    workdir = tmp_path / "workflow"
    collection_workflow(workdir, {"ir_datasets": "cranfield"})
    path = workdir / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["compare"]["measures"] = ["map", "P_1O", "nDCG@10"]
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    done = run_snakemake(workdir, "-n")
    with pytest.raises(MeasureError) as refused:
        plan(["P_1O"])
    assert done.returncode != 0
    assert f"compare: measures: {refused.value}" in done.stderr + done.stdout
    assert not (workdir / "results").exists()
