"""What `studyapp serve` lets through: its per-run token, the page's own Origin, and terminal sizes.

Shared by the command (`cli/serve.py`) and the server (`cli/served.py`) in a module of its own, so
neither imports the other at module level.
"""

from __future__ import annotations

import ipaddress
import secrets
from urllib.parse import urlsplit

# A terminal bigger than any screen shows; textual's buffers grow with width × height (a
# 20000×20000 resize took one session to 2 GB).
MAX_COLUMNS = 500
MAX_ROWS = 200


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_matches(given: str | None, token: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lower-cased, default ports dropped."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    netloc = parts.netloc.lower().rsplit("@", 1)[-1]
    default_port = {"http": ":80", "https": ":443"}.get(scheme)
    if default_port and netloc.endswith(default_port):
        netloc = netloc[: -len(default_port)]
    return f"{scheme}://{netloc}"


def _is_ip_or_localhost(netloc: str) -> bool:
    host = netloc.rsplit(":", 1)[0] if not netloc.endswith("]") else netloc
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str | None, request_host: str | None, fixed_public_url: str | None) -> bool:
    """Whether a websocket's Origin header is this server's own page.

    No Origin: not a browser (browsers always send one); such a client still needs the token.
    A browser's Origin must be the page's: the --public-url, or the address the request came
    to (Host) when that is an IP address or localhost. A name is accepted only as --public-url,
    so a site that points its own name at 127.0.0.1 (DNS rebinding) is still another origin.
    """
    if origin is None:
        return True
    seen = origin_of(origin)
    if fixed_public_url and seen == origin_of(fixed_public_url):
        return True
    if not request_host:
        return False
    host = request_host.lower()
    return _is_ip_or_localhost(host) and seen in (origin_of(f"http://{host}"), origin_of(f"https://{host}"))


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size from the browser, made sane: integers within 1..MAX (else the default)."""

    def one(value: object, default: int, most: int) -> int:
        try:
            number = int(value) if not isinstance(value, bool) else default  # type: ignore[call-overload]
        except (TypeError, ValueError, OverflowError):
            number = default
        return min(max(number, 1), most)

    return one(width, 80, MAX_COLUMNS), one(height, 24, MAX_ROWS)
