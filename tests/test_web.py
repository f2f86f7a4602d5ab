"""`irscore serve` without a browser: its security rules, and jobs that equal the CLI.

One server for the module (and one more with a small upload cap and files given
on the command line); each request is made as a browser or an attacker would.
"""

from __future__ import annotations

import json
import subprocess
import urllib.parse

import pytest
from cli_calls import printed as cli
from web_server import IRSCORE, job, request, serving

from irscore.web import app, jobs, presets, settings, worker

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN_A = "1 Q0 b 1 0.9 A\n1 Q0 a 2 0.5 A\n1 Q0 c 3 0.4 A\n2 Q0 e 1 0.9 A\n2 Q0 d 2 0.2 A\n"
RUN_B = "1 Q0 a 1 0.9 B\n1 Q0 c 2 0.5 B\n1 Q0 b 3 0.4 B\n2 Q0 d 1 0.9 B\n2 Q0 e 2 0.2 B\n"


@pytest.fixture(scope="module")
def server():
    with serving() as (url, _):
        yield url


def test_it_serves_127_0_0_1_and_refuses_other_hosts(server):
    assert server.startswith("http://127.0.0.1:")
    port = urllib.parse.urlsplit(server).port
    assert request(server, "/")[0] == 200
    assert request(server, "/", host=f"localhost:{port}")[0] == 200
    # DNS rebinding: a name of another site that points at 127.0.0.1
    status, _, body = request(server, "/", host=f"attacker.example:{port}")
    assert status == 421 and "attacker.example" in body["error"]["message"]
    assert request(server, "/api/start", host="127.0.0.1:1")[0] == 421  # another port


def test_another_site_s_page_cannot_start_a_job(server):
    """A page of another site can make the browser POST to 127.0.0.1 (a form, a no-cors
    fetch): with its Origin, or as a form's text, the request is refused."""
    body = {"qrels": QRELS, "a": RUN_A}
    status, _, said = request(server, "/api/jobs/evaluate", body, origin="http://attacker.example")
    assert status == 403 and "attacker.example" in said["error"]["message"]
    status, _, said = request(server, "/api/jobs/evaluate", body, content_type="text/plain")
    assert status == 415 and said["error"]["message"] == "the workbench's requests are JSON"
    assert request(server, "/api/jobs/evaluate", body, origin=server.rstrip("/"))[0] == 200


def test_every_answer_allows_no_other_origin(server):
    for path in ("/", "/static/app.js", "/api/presets/croft-ap", "/no-such-page"):
        _, response, _ = request(server, path)
        policy = response.getheader("content-security-policy")
        assert "default-src 'none'" in policy and "connect-src 'self'" in policy
        assert "http" not in policy and "*" not in policy  # no origin named, no wildcard
        assert response.getheader("x-frame-options") == "DENY"
    _, _, page = request(server, "/")
    assert "http://" not in page.replace('xmlns="http://www.w3.org', "")
    assert "https://" not in page


def test_another_address_warns(tmp_path):
    process = subprocess.Popen(
        [str(IRSCORE), "serve", "--host", "0.0.0.0", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        warning = process.stderr.readline()
        assert process.stdout.readline().startswith("irscore serve: http://0.0.0.0:")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert "warning: serving on 0.0.0.0, not 127.0.0.1" in warning


def test_upload_cap_and_files_read_at_start(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "mine.run"
    qrels.write_text(QRELS)
    run.write_text(RUN_A)
    with serving(str(qrels), str(run), "--max-upload", "0.01") as (url, _):
        qrels.unlink()  # read at start: the page still has them
        run.write_text("changed after the start\n")
        _, _, start = request(url, "/api/start")
        assert start == {"qrels": QRELS, "a": RUN_A, "na": "mine.run"}
        status, _, body = request(url, "/api/jobs/evaluate", {"qrels": "x" * 20_000})
    assert status == 413
    assert body["error"]["message"] == (
        "the request is 20 kB; irscore serve takes at most 10 kB in one request "
        "(start it with --max-upload MB to allow more)"
    )


def test_a_file_given_at_start_that_cannot_be_read_is_one_line(tmp_path):
    binary = tmp_path / "qrels.bin"
    binary.write_bytes(b"\xff\xfe1 0 a 1\n")
    for name, said in (
        (str(tmp_path / "missing"), "No such file or directory"),
        (str(binary), f"{binary}: not UTF-8 text (invalid start byte)"),
    ):
        done = subprocess.run([str(IRSCORE), "serve", name], capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("irscore: error: ") and said in done.stderr
        assert len(done.stderr.splitlines()) == 1


def test_a_request_never_names_a_server_path(server, tmp_path):
    # a path pasted as the qrels is read as the qrels' text, not opened
    done = job(server, "evaluate", {"qrels": "/etc/passwd\n", "a": RUN_A})
    assert done["error"]["message"] == "qrels:1: expected 4 columns, found 1: '/etc/passwd'"
    target = tmp_path / "written.svg"
    for body in (
        {"metric": f"map --plot={target}"},
        {"metric": f"--plot={target}"},
        {"B": f"10 --plot={target}"},
    ):
        done = job(server, "compare", {"qrels": QRELS, "a": RUN_A, "b": RUN_B, **body})
        assert done["error"]["field"] == "settings"
    done = job(server, "evaluate", {"qrels": QRELS, "a": RUN_A, "settings": {"k": f"5,{target}"}})
    assert done["error"]["message"].startswith("k: ")
    assert not target.exists()
    with pytest.raises(settings.SettingError, match="tie_break"):
        settings.convention_flags({"tie_break": "--out=/tmp"})


def test_an_input_error_names_the_box_and_the_line(server):
    bad = QRELS + "2 0 f\n"  # line 6: three columns
    done = job(server, "evaluate", {"qrels": bad, "a": RUN_A})
    assert done["error"] == {
        "message": "qrels:6: expected 4 columns, found 3: '2 0 f'",
        "field": "qrels",
        "line": 6,
    }
    done = job(server, "evaluate", {"qrels": QRELS, "a": RUN_A, "b": "1 Q0 a 1 high B\n"})
    assert done["error"]["field"] == "b" and done["error"]["line"] == 1
    assert done["error"]["message"].startswith("run_b:1: ")


def test_evaluate_job_prints_what_the_cli_prints(server, tmp_path):
    for name, text in (("qrels", QRELS), ("run_a", RUN_A)):
        (tmp_path / name).write_text(text)
    chosen = {"k": "1,2", "rl": "2", "J": "true", "tie_break": "docno_asc"}
    done = job(server, "evaluate", {"qrels": QRELS, "a": RUN_A, "settings": chosen})["ok"]
    flags = ["-l=2", "--gmax=4", "-J", "--tie-break=docno_asc", "-m=all_trec"]
    flags += [f"-m={f}.1,2" for f in ("P", "recall", "ndcg_cut", "err")]
    shown = ["irscore", "evaluate", *flags, "qrels", "RUN"]
    assert sorted(done["command"].split()) == sorted(shown)
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run_a")]
    assert done["runs"]["a"]["trec"] == cli("evaluate", *flags, *paths)
    per_topic = job(server, "trec", {"qrels": QRELS, "a": RUN_A, "settings": chosen, "run": "a"})
    assert per_topic["ok"]["trec_q"] == cli("evaluate", *flags, "-q", *paths)
    run = done["runs"]["a"]
    assert run["name"] == "A" and run["topics"] == ["1", "2"]
    # -l 2: only a (grade 2) is relevant; topic 1 ranks b, a, c: AP = (1/2)/1; topic 2 none
    assert run["values"]["map"] == [0.5, 0.0] and run["means"]["map"] == 0.25


def test_csv_and_tsv_inputs_are_read_as_the_cli_reads_them(server, tmp_path):
    qrels = "qid,docno,grade\n1,a,2\n1,b,0\n1,c,1\n2,d,1\n2,e,0\n"
    run = "qid\tdocno\tscore\n1\tb\t0.9\n1\ta\t0.5\n1\tc\t0.4\n2\te\t0.9\n2\td\t0.2\n"
    done = job(server, "evaluate", {"qrels": qrels, "a": run})["ok"]
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run_a").write_text(run)
    flags = ["-l=1", "--gmax=4", "-m=all_trec"]
    assert done["runs"]["a"]["trec"] == cli("evaluate", *flags, *(str(p) for p in (
        tmp_path / "qrels", tmp_path / "run_a")))  # fmt: skip
    # the same judgments and ranking as QRELS and RUN_A: AP (1/2 + 2/3)/2 and 1/2
    assert done["runs"]["a"]["values"]["map"] == [(1 / 2 + 2 / 3) / 2, 1 / 2]


def test_the_presets_hold_their_figures():
    """The hand-worked figures of each preset's docstring, by the CLI on its data."""
    import tempfile
    from pathlib import Path

    def evaluated(name: str, *flags: str) -> dict[str, str]:
        data = presets.PRESETS[name]["data"]
        folder = Path(tempfile.mkdtemp())
        out = {}
        for key in ("a", "b"):
            if not data[key]:
                continue
            (folder / "qrels").write_text(data["qrels"])
            (folder / key).write_text(data[key])
            text = cli("evaluate", *flags, str(folder / "qrels"), str(folder / key))
            out[key] = {line.split()[0]: line.split()[2] for line in text.splitlines()}
        return out

    croft = evaluated("croft-ap")
    assert (croft["a"]["map"], croft["b"]["map"]) == ("0.7153", "0.3396")  # 0.71 / 0.33
    assert evaluated("croft-map")["a"]["map"] == "0.5325"
    assert evaluated("wiki-dcg", "-m", "ndcg_cut.6")["a"]["ndcg_cut_6"] == "0.7850"
    assert set(presets.PRESETS) >= {
        "croft-ap",
        "croft-map",
        "wiki-dcg",
        "err-cascade",
        "pooled-trec",
        "ties",
        "interleave",
    }


def test_worker_errors_without_a_server(tmp_path):
    def run(kind: str, request: dict) -> dict:
        folder = tmp_path / kind
        folder.mkdir()
        return worker.run(kind, worker.write_inputs(request, folder), folder)

    # no input (or only blanks): said beside the box it belongs to
    assert run("evaluate", {"qrels": " \n\n", "a": RUN_A})["error"]["field"] == "qrels"
    assert run("compare", {"qrels": QRELS, "a": RUN_A})["error"]["field"] == "b"
    found = run("ranking", {"grades": "3,x"})["error"]
    assert found["field"] == "settings" and "grades" in found["message"]


def test_the_docs_say_what_the_server_does():
    """docs/workbench.md's and the README's claims on `irscore serve`, against the code."""
    import re
    from pathlib import Path

    from doc_pages import page, section

    from irscore.cli import build_parser
    from irscore.web.app import Config

    docs = section(page("workbench.md"), "## The workbench in the browser: `irscore serve`")
    readme = " ".join(page("README.md").split())
    table = re.findall(r"^\| `([\w-]+)` \| ", docs, re.M)
    assert table == list(presets.PRESETS)
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]
    defaults = {a.dest: a.default for a in serve._actions}
    assert defaults["max_upload"] == 64 == Config().max_body / 1e6
    assert "(64 MB by default)" in docs and "(`--max-upload`, 64 MB)" in readme
    assert defaults["port"] == 8000 and "http://127.0.0.1:8000/" in readme
    healing = " ".join(docs.split("**It heals and bounds itself.**")[1].split("**")[0].split())
    assert f"At most {jobs.WAITING} jobs wait for each of the two workers" in healing
    assert app.HELD == 4 and "at most four times `--max-upload` of input" in healing
    assert f"`Retry-After: {jobs.RETRY_AFTER}`" in healing
    assert defaults["host"] == "127.0.0.1"
    script = (Path(worker.__file__).parent / "static" / "app.js").read_text()
    fields = re.search(r"const FIELDS = \{(.*?)\};", script, re.S).group(1)
    in_link = set(re.findall(r"(\w+): ", fields)) | {"example", "qrels", "a", "b", "z", "nodata"}
    named = set(re.findall(r"`(\w+)`", docs.split("**Share link**")[1].split("The presets")[0]))
    assert named - {"compare"} <= in_link  # `#compare` is the tab
    assert "past 1,500 characters" in docs and "const PACK_OVER = 1500;" in script
    assert "at most 8,192 characters" in docs and "const LINK_MAX = 8192;" in script
    repo = Path(worker.__file__).parents[3]  # the web extra's packages, locked for the suite
    web = re.search(r"^web = \[(.*)\]$", (repo / "pyproject.toml").read_text(), re.M)[1]
    lock = (repo / "requirements.lock").read_text()
    for name in ("starlette", "uvicorn", "jinja2"):
        assert f'"{name}>=' in web and re.search(rf"^{name}==", lock, re.M | re.I)


def test_compare_job_without_b_is_irscore_compare_with_its_defaults(server, tmp_path):
    data = presets.PRESETS["interleave"]["data"]
    done = job(server, "compare", {**data, "metric": "map"})["ok"]
    for name, key in (("qrels", "qrels"), ("run_a", "a"), ("run_b", "b")):
        (tmp_path / name).write_text(data[key])
    paths = [str(tmp_path / name) for name in ("qrels", "run_a", "run_b")]
    printed = cli("compare", "-m", "map", "--correction", "none", "--format", "json", *paths)
    assert "--B" not in done["command"]
    assert done["tests"] == worker.finite(json.loads(printed))
    assert [t["test"] for t in done["tests"]] == ["t", "wilcoxon", "randomization", "bootstrap"]
