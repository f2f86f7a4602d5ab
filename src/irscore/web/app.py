"""The workbench's web app: one page, its scripts and styles, and a small JSON API.

GET / is the page (a Jinja2 template of the tabs), /static/ its JavaScript and
CSS (shipped in this package: no other origin is ever asked for anything),
/api/start the files named on the command line (read once, at start),
/api/presets/NAME an example's data, /api/measure?metric=NAME whether the command
line takes a measure box's name (the same resolver, the same message); POST
/api/jobs/KIND starts a job (`irscore.web.jobs`) on the texts and settings in its
JSON body, and GET /api/jobs/ID says how far it is and, when done, its result.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from irscore import __version__
from irscore.engine.conventions import CHOICES, COMPAT, Convention
from irscore.web import security, settings, worker
from irscore.web.jobs import Jobs
from irscore.web.presets import PRESETS

HERE = Path(__file__).parent
TEXT_FIELDS = ("qrels", "a", "b")


@dataclass(frozen=True)
class Config:
    """How the server was started: its address, the upload cap and the files given."""

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
        jobs["pool"] = Jobs()
        jobs["pool"].warm()
        yield
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
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the request is not JSON")
        if not isinstance(body, dict):
            return _error(400, "the request is not a JSON object")
        body = _plain(body)
        return JSONResponse({"id": jobs["pool"].submit(kind, body)})

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

    routes = [
        Route("/", page),
        Route("/api/start", start),
        Route("/api/presets/{name}", preset),
        Route("/api/measure", measure),
        Route("/api/jobs/{kind}", submit, methods=["POST"]),
        Route("/api/jobs/{id}", state),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return security.Guard(app, security.allowed_hosts(config.host, config.port), config.max_body)


def _plain(body: dict[str, Any]) -> dict[str, Any]:
    """The request with the input texts as strings and the settings as a flat mapping
    of strings: whatever else it holds is dropped, never looked at."""
    plain: dict[str, Any] = {}
    for key, value in body.items():
        if key == "settings" and isinstance(value, dict):
            plain[key] = {str(k): str(v) for k, v in value.items() if isinstance(v, str | int)}
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            plain[key] = str(value)
    return plain


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": {"message": message, "field": None}}, status_code=status)


def read_start_files(paths: list[str]) -> dict[str, str]:
    """The files named on the command line (qrels, run A, run B), read now, once: the
    page gets their texts; no request can name a file of its own."""
    from irscore.engine.errors import InputError, display_name

    start: dict[str, str] = {}
    for key, path in zip(TEXT_FIELDS, paths, strict=False):
        try:
            start[key] = Path(path).read_text(encoding="utf-8", errors="strict")
        except UnicodeDecodeError as err:
            raise InputError(f"{display_name(path)}: not UTF-8 text ({err.reason})") from None
        if key != "qrels":
            start[f"n{key}"] = Path(path).name
    return start
