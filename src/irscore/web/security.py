"""Nothing leaves the machine and nobody else gets in: the server's rules, as ASGI middleware.

- A request whose Host header is not the address served is refused (421): a
  page of another site that points a name of its own at 127.0.0.1 (DNS
  rebinding) cannot reach the workbench.
- A request body over the cap is refused (413) with a message that says the
  size, the cap and how to raise it, before more of it is read: by its
  Content-Length, or, sent in chunks, as soon as the chunks read pass the cap
  (the body is read here, whole, before the app sees it).
- A POST must come from this page: JSON (which another site's form cannot send)
  and, when the browser says where from (Origin), from this address (403).
- Every answer carries a Content Security Policy that allows nothing but this
  address (no other origin for scripts, styles, images, frames, connections),
  and says not to sniff types, not to be framed, and to send no referrer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers of this server: host:port, and localhost:port for a loopback host."""
    hosts = {f"{host}:{port}"}
    if host in ("127.0.0.1", "localhost", "::1"):
        hosts |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    elif ":" in host:  # an IPv6 address is written in brackets in a Host header
        hosts.add(f"[{host}]:{port}")
    return hosts


def size_text(size: int) -> str:
    """A size in MB (kB under one MB), as --max-upload takes it."""
    return f"{size / 1_000_000:.1f} MB" if size >= 1_000_000 else f"{size / 1000:.0f} kB"


class Guard:
    """The rules of this module around the app."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], max_body: int) -> None:
        self.app, self.hosts, self.max_body = app, set(hosts), max_body

    def too_large(self, size: int | None) -> str:
        """The 413's message: the size (when the request said it), the cap, the option."""
        seen = size_text(size) if size is not None else f"over {size_text(self.max_body)}"
        return (
            f"the request is {seen}; irscore serve takes at most {size_text(self.max_body)} "
            "in one request (start it with --max-upload MB to allow more)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if host not in self.hosts:
            await _answer(send, 421, f"Host {host!r} is not served here (this is irscore serve)")
            return
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get(b"origin", b"").decode("latin-1")
            if origin and origin.removeprefix("http://") not in self.hosts:
                await _answer(send, 403, f"a request from {origin!r} is not served here")
                return
            kind = headers.get(b"content-type", b"").split(b";")[0].strip()
            if kind != b"application/json":
                await _answer(send, 415, "the workbench's requests are JSON")
                return
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await _answer(send, 413, self.too_large(int(length)))
            return
        body = await self.body(receive)
        if body is None:
            await _answer(send, 413, self.too_large(None))
            return
        given = False

        async def replayed() -> dict[str, Any]:
            nonlocal given
            if given:
                return await receive()  # what follows the body: a disconnect
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, replayed, secured)

    async def body(self, receive: Receive) -> bytes | None:
        """The whole request body, however it is sent; None once it passes the cap."""
        chunks, received = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b""  # the client went away: its answer goes nowhere
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            if received > self.max_body:
                return None
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


async def _answer(send: Send, status: int, message: str) -> None:
    """A JSON answer {"error": {"message": ...}} with the security headers."""
    body = json.dumps({"error": {"message": message, "field": None}}).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": start + HEADERS})
    await send({"type": "http.response.body", "body": body})
