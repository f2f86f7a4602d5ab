"""The workbench's web app: one page, its scripts and styles, and a small JSON API.

GET / is the page (a Jinja2 template of the tabs), /static/ its JavaScript and
CSS (shipped in this package: no other origin is ever asked for anything),
/api/start the files named on the command line (read once, at start),
/api/presets/NAME an example's data, /api/measure?metric=NAME whether the command
line takes a measure box's name (the same resolver, the same message); POST
/api/jobs/KIND starts a job (`irscore.web.jobs`) on the texts and settings in its
JSON body (400 for a body that is not a JSON object, 503 with Retry-After when too
much work waits), GET /api/jobs/ID says how far it is (queued and its place,
running, done) and, when done, its result, and DELETE /api/jobs/ID cancels it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from irscore import __version__
from irscore.engine.ranking.conventions import CHOICES, COMPAT, Convention
from irscore.web import security, settings, worker
from irscore.web.jobs import RETRY_AFTER, Busy, Jobs
from irscore.web.presets import PRESETS

HERE = Path(__file__).parent
TEXT_FIELDS = ("qrels", "a", "b")
NOT_READ = "the request is not JSON that the workbench reads"
HELD = 4  # the bytes of input held by the jobs not yet done, in upload caps


@dataclass(frozen=True)
class Config:
    """How the server was started: its address, the upload cap and the files given;
    the jobs not yet done hold at most `HELD` times the upload cap."""

    host: str = "127.0.0.1"
    port: int = 8000
    max_body: int = 64_000_000
    start: Mapping[str, str] = field(default_factory=dict)  # qrels, a, b, na, nb


def create_app(config: Config) -> security.Guard:
    """The app for `config`, inside the security rules."""
    templates = Jinja2Templates(directory=HERE / "templates")
    jobs: dict[str, Jobs] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        jobs["pool"] = Jobs(HELD * config.max_body)
        try:
            yield
        finally:
            jobs["pool"].close()

    async def page(request: Request) -> Response:
        reference = Convention()
        fields = {
            name: (CHOICES[name], getattr(reference, name)) for name in settings.CONVENTION_FLAGS
        }
        context = {
            "version": __version__,
            "presets": {name: p["title"] for name, p in PRESETS.items()},
            "fields": fields,
            "methods": settings.METHODS,
            "click_models": settings.CLICK_MODELS,
            "compat": tuple(COMPAT),
            "corrections": settings.CORRECTIONS,
            "correction_default": settings.correction_default(),
        }
        return templates.TemplateResponse(request, "index.html", context)

    async def start(request: Request) -> Response:
        return JSONResponse(dict(config.start))

    async def preset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in PRESETS:
            return _error(404, f"no example {name!r}; there are {', '.join(PRESETS)}")
        return JSONResponse(PRESETS[name])

    async def submit(request: Request) -> Response:
        kind = request.path_params["kind"]
        if kind not in worker.JOBS:
            return _error(404, f"no job {kind!r}")
        raw = await request.body()
        busy = jobs["pool"].refusal(kind, len(raw))  # before the body is read further
        if busy:
            return _error(503, busy, {"Retry-After": str(RETRY_AFTER)})
        try:
            body = json.loads(raw)
        except RecursionError:
            return _error(400, f"{NOT_READ} (nested too deeply)")
        except ValueError:  # not JSON, not UTF-8, a number of more than 4,300 digits
            return _error(400, "the request is not JSON")
        if not isinstance(body, dict):
            return _error(400, "the request is not a JSON object")
        return await run_in_threadpool(accept, kind, body, len(raw))

    def accept(kind: str, body: dict[str, Any], size: int) -> Response:
        """Start the job (its inputs are written here, in a thread of the server); the
        answer, a refusal too. A refusal is returned, never raised out of the thread: a
        raised one would keep the request's texts in a reference cycle until Python's
        garbage collector runs (180 MB per refused 60 MB request, measured)."""
        try:
            return JSONResponse({"id": jobs["pool"].submit(kind, _plain(body), size)})
        except UnicodeEncodeError:  # "\ud800": JSON can say it, no file or argument can
            return _error(400, f"{NOT_READ} (a lone surrogate)")
        except Busy as busy:
            return _error(503, str(busy), {"Retry-After": str(RETRY_AFTER)})
        except OSError as err:  # the disk is full, $TMPDIR is gone
            said = f"the server cannot keep the job's inputs: {err.strerror or err}"
            return _error(503, said, {"Retry-After": str(RETRY_AFTER)})

    async def measure(request: Request) -> Response:
        try:
            name = settings.measure(request.query_params, "metric", "map")
        except settings.SettingError as err:
            return JSONResponse({"error": {"message": str(err), "field": "metric"}})
        return JSONResponse({"ok": name})

    async def state(request: Request) -> Response:
        found = jobs["pool"].state(request.path_params["id"])
        if found is None:
            return _error(404, "no such job (the server was restarted?)")
        return JSONResponse(found)

    async def cancel(request: Request) -> Response:
        found = jobs["pool"].cancel(request.path_params["id"])
        if found is None:
            return _error(404, "no such job (the server was restarted?)")
        return JSONResponse(found)

    routes = [
        Route("/", page),
        Route("/api/start", start),
        Route("/api/presets/{name}", preset),
        Route("/api/measure", measure),
        Route("/api/jobs/{kind}", submit, methods=["POST"]),
        Route("/api/jobs/{id}", state),
        Route("/api/jobs/{id}", cancel, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return security.Guard(app, security.allowed_hosts(config.host, config.port), config.max_body)


def _plain(body: dict[str, Any]) -> dict[str, Any]:
    """The request with the input texts as strings and the settings as a flat mapping
    of strings: whatever else it holds is dropped, never looked at. A setting that is
    not Unicode (a lone surrogate) is a UnicodeEncodeError (a text is when written)."""
    plain: dict[str, Any] = {}
    for key, value in body.items():
        if key == "settings" and isinstance(value, dict):
            plain[key] = {
                _unicode(str(k)): _unicode(str(v))
                for k, v in value.items()
                if isinstance(v, str | int)
            }
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            plain[key] = str(value) if key in TEXT_FIELDS else _unicode(str(value))
    return plain


def _unicode(text: str) -> str:
    """The text; UnicodeEncodeError when it holds a lone surrogate."""
    text.encode("utf-8")
    return text


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    body = {"error": {"message": message, "field": None}}
    return JSONResponse(body, status_code=status, headers=headers)


def read_start_files(paths: list[str]) -> dict[str, str]:
    """The files named on the command line (qrels, run A, run B), read now, once: the
    page gets their texts; no request can name a file of its own."""
    from irscore.engine.reading.errors import InputError, display_name

    start: dict[str, str] = {}
    for key, path in zip(TEXT_FIELDS, paths, strict=False):
        try:
            start[key] = Path(path).read_text(encoding="utf-8", errors="strict")
        except UnicodeDecodeError as err:
            raise InputError(f"{display_name(path)}: not UTF-8 text ({err.reason})") from None
        if key != "qrels":
            start[f"n{key}"] = Path(path).name
    return start
