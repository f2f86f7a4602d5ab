"""`irscore serve`: the workbench in the browser, on this machine only."""

from __future__ import annotations

import argparse
import sys

from irscore.cli.common import UsageError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `serve` subcommand's arguments."""
    parser = commands.add_parser(
        "serve",
        help="the workbench as a local web page: data, metrics, one ranking, compare, interleave",
        description="Start the workbench on http://127.0.0.1:PORT/ and print its address. "
        "QRELS, RUN_A and RUN_B (optional) are read now and shown in the page; "
        "anything else is pasted or opened in the page. Nothing leaves the machine: the "
        "page asks no other origin for anything, and requests for another host are refused.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="QRELS [RUN_A [RUN_B]]")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free one)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--max-upload", type=float, default=64, metavar="MB", help="largest request (64 MB)"
    )
    return parser


def run(args: argparse.Namespace) -> str:
    """Serve until interrupted; the address goes to stdout as soon as it listens."""
    if len(args.files) > 3:
        raise UsageError("give at most QRELS RUN_A RUN_B")
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port {args.port}: not a port number")
    if args.max_upload <= 0:
        raise UsageError(f"--max-upload {args.max_upload:g}: give a positive number of MB")
    import socket

    from irscore.engine.system.extras import require

    require("web", "irscore serve")
    import uvicorn

    from irscore.web.app import Config, create_app, read_start_files

    start = read_start_files(args.files)
    if args.host not in LOOPBACK:
        print(
            f"irscore: warning: serving on {args.host}, not 127.0.0.1: other machines "
            "that reach this address can use the workbench",
            file=sys.stderr,
        )
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(128)  # connections wait from now on, so the address printed works
    port = listener.getsockname()[1]
    config = Config(args.host, port, int(args.max_upload * 1_000_000), start)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"irscore serve: http://{shown}:{port}/ (Ctrl-C stops it)", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), log_level="warning", lifespan="on", access_log=False)
    )
    server.run(sockets=[listener])
    return ""
