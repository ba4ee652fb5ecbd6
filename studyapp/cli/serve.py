"""`studyapp serve`: the same TUI in a browser, through textual-serve.

Each browser tab that opens the page starts its own `studyapp` process (with this command's
--data-dir, --content and --lang) on the same progress file, as a second terminal would. The
server listens on 127.0.0.1 unless told otherwise: the page drives the app with the learner's
data, so it is for this machine, or for an SSH tunnel:

    ssh -L 8000:127.0.0.1:8000 study-box   # then, on study-box: studyapp serve
    # and open http://127.0.0.1:8000 here. Another local port: --public-url http://127.0.0.1:9000

`--public-url` is the address the browser uses (the page's websocket URL is built from it).
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from typing import Any

from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser("serve", parents=[common], help="the TUI in a web browser (textual-serve)")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="the address the browser opens, when it differs (an ssh -L tunnel to another local port)",
    )
    serve.set_defaults(handler=cmd_serve)


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser session: this Python, this studyapp,
    the same data and content and language."""
    command = [sys.executable, "-m", "studyapp"]
    for option, value in (("--data-dir", args.data_dir), ("--content", args.content), ("--lang", args.lang)):
        if value:
            command += [option, str(value)]
    return shlex.join(command)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url(host: str, port: int, given: str | None) -> str:
    if given:
        return given.rstrip("/")
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def cmd_serve(args: argparse.Namespace, t: Translator) -> int:
    if not 0 < args.port < 65536:
        raise StudyappError(t("serve.bad_port", port=args.port))
    try:  # aiohttp and textual-serve (~150 ms) only for this command
        from textual_serve.server import Server
    except ImportError:
        raise StudyappError(t("serve.missing")) from None
    url = public_url(args.host, args.port, args.public_url)
    print(t("serve.listening", url=url), flush=True)
    if not is_loopback(args.host):
        print(t("serve.exposed", host=args.host), file=sys.stderr, flush=True)
    server = Server(app_command(args), host=args.host, port=args.port, title="studyapp", public_url=url)
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not ours
        raise StudyappError(
            t("serve.cannot_listen", host=args.host, port=args.port, problem=exc.strerror or exc)
        ) from None
    return EXIT_OK
