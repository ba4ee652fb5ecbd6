"""`studyapp serve`: the same TUI in a browser, through textual-serve.

Each browser tab that opens the page starts its own `studyapp` process (with this command's
--data-dir, --content and --lang) on the same progress file, as a second terminal would. The
server listens on 127.0.0.1 unless told otherwise: the page drives the app with the learner's
data, so it is for this machine, or for an SSH tunnel:

    ssh -L 8000:127.0.0.1:8000 study-box   # then, on study-box: studyapp serve
    # and open the printed address (with its token) here.

127.0.0.1 is every local account's, and any web page in the learner's browser may open a
websocket to it, so the page and its websocket also need a secret made for this run (printed in
the address, never logged or passed to a child), and a websocket whose Origin is another site's
is refused (`origin_allowed`). The server itself is `cli/served.py`, imported only here.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import subprocess
import sys
from typing import Any

from studyapp.cli.serve_policy import (  # noqa: F401 (tests and the server read them here too)
    MAX_COLUMNS,
    MAX_ROWS,
    clamp_size,
    new_token,
    origin_allowed,
    origin_of,
    token_matches,
)
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_SESSIONS = 4  # tabs at once; each is a studyapp process of ~60 MB


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser("serve", parents=[common], help="the TUI in a web browser (textual-serve)")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="the address the browser opens, when it differs (an ssh -L tunnel to another local port)",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"browser tabs served at once (default: {DEFAULT_MAX_SESSIONS})",
    )
    serve.set_defaults(handler=cmd_serve)


def app_command(args: argparse.Namespace, platform: str = sys.platform) -> str:
    """The shell command textual-serve runs for each browser session: this Python, this studyapp,
    the same data and content and language. textual-serve hands it to the platform's shell, so it
    is quoted for that shell; on POSIX `exec` makes the session's Python the server's own child
    (not a shell's), so the session is one process and sees the server's pipes close."""
    command = [sys.executable, "-m", "studyapp"]
    for option, value in (("--data-dir", args.data_dir), ("--content", args.content), ("--lang", args.lang)):
        if value:
            command += [option, str(value)]
    if platform == "win32":
        return subprocess.list2cmdline(command)
    return "exec " + shlex.join(command)


def address_is_loopback(address: str) -> bool:
    """An address a socket is bound to (as getsockname gives it) reaches this machine only."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def address_is_wildcard(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_unspecified
    except ValueError:
        return False


def shown_address(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def public_url(host: str, port: int, given: str | None) -> str:
    """The address to print for the page. For a wildcard bind (0.0.0.0, ::, '') that is this
    machine's loopback: 0.0.0.0 is not an address a browser can open."""
    if given:
        return given.rstrip("/")
    if host == "" or address_is_wildcard(host):
        host = "::1" if host and ":" in host else "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def cmd_serve(args: argparse.Namespace, t: Translator) -> int:
    if not 0 < args.port < 65536:
        raise StudyappError(t("serve.bad_port", port=args.port))
    if args.max_sessions < 1:
        raise StudyappError(t("serve.bad_max_sessions", count=args.max_sessions))
    try:  # aiohttp and textual-serve (~150 ms) only for this command
        from studyapp.cli.served import StudyappServer
    except ImportError:
        raise StudyappError(t("serve.missing")) from None
    token = new_token()  # only in this process's memory and the address printed below

    def on_listening(bound: list[str]) -> None:
        """Said once the sockets are bound, so nothing is announced for an address it cannot use."""
        url = public_url(args.host, args.port, args.public_url)
        print(t("serve.listening", url=f"{url}/?token={token}"), flush=True)
        exposed = [address for address in bound if not address_is_loopback(address)]
        if exposed:
            shown = ", ".join(shown_address(address, args.port) for address in exposed)
            print(t("serve.exposed", host=shown), file=sys.stderr, flush=True)

    server = StudyappServer(
        app_command(args),
        host=args.host,
        port=args.port,
        public_url=args.public_url.rstrip("/") if args.public_url else None,
        token=token,
        max_sessions=args.max_sessions,
        t=t,
    )
    try:
        server.serve_until_stopped(on_listening)
    except OSError as exc:  # the port is taken, the address is not ours
        raise StudyappError(
            t("serve.cannot_listen", host=args.host, port=args.port, problem=exc.strerror or exc)
        ) from None
    except KeyboardInterrupt:  # Ctrl+C where signal handlers are not available (Windows)
        pass
    return EXIT_OK
