"""The web server behind `studyapp serve`: textual-serve's `Server`, made safe to leave running.

textual-serve serves any websocket that reaches it. This one serves the page and its websocket
only with the run's token (`serve.token_matches`), refuses a browser Origin that is not its own
page (`serve.origin_allowed`), bounds message sizes, terminal sizes and the number of sessions,
says one line (no traceback, no locals) about what it refuses or cannot read, writes no access
log (the token is in every URL), and only announces the address once it listens. Each session's
studyapp runs under `tui/web_driver.py`, which ends it when the server's pipe closes.

Imported by `cli/serve.py` only when `studyapp serve` runs (aiohttp is ~150 ms).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from studyapp.cli.serve_policy import MAX_COLUMNS, MAX_ROWS, clamp_size, origin_allowed, token_matches
from studyapp.i18n import Translator

log = logging.getLogger("studyapp.serve")

SERVED_DRIVER = "studyapp.tui.web_driver:ServedWebDriver"
# The browser sends keys, pastes and sizes; 64 KiB is a long paste. aiohttp's default is 4 MiB.
MAX_MESSAGE_BYTES = 64 * 1024
# What a session's studyapp printed on stderr, kept to show the browser why it did not start.
STDERR_KEPT_BYTES = 16 * 1024


class OneLineFormatter(logging.Formatter):
    """Every log record as one line: the message's first line and, for an exception, its type.
    textual-serve's own handler printed a Rich traceback with the handler's locals."""

    def format(self, record: logging.LogRecord) -> str:
        lines = record.getMessage().strip().splitlines()
        text = lines[0] if lines else ""
        if record.exc_info and record.exc_info[0] is not None:
            text = f"{text} ({record.exc_info[0].__name__})"
        return f"studyapp serve: {text}"


class _KeptStderr:
    """The session process's stderr, read as textual-serve reads it, with its start kept."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self.kept = bytearray()

    async def read(self, size: int = -1) -> bytes:
        data = await self._reader.read(size)
        if len(self.kept) < STDERR_KEPT_BYTES:
            self.kept += data[: STDERR_KEPT_BYTES - len(self.kept)]
        return data


class SessionService(AppService):
    """One browser tab's studyapp process, under the driver that ends it with the server."""

    def __init__(self, *args: Any, failed_text: Callable[[str], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._painted = False
        self._stderr: _KeptStderr | None = None
        self._failed_text = failed_text

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment["TEXTUAL_DRIVER"] = SERVED_DRIVER
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        process = await super()._open_app_process(width, height)
        if process.stderr is not None:
            self._stderr = _KeptStderr(process.stderr)
            process.stderr = self._stderr  # type: ignore[assignment]
        return process

    async def on_data(self, payload: bytes) -> None:
        self._painted = True
        await super().on_data(payload)

    async def run(self) -> None:
        await super().run()
        if self._painted or self._stderr is None:
            return
        # The app never drew (a read-only store, bad --content): the browser gets its one line
        # rather than an empty page, and the session ends.
        lines = bytes(self._stderr.kept).decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else "?"
        try:
            await self.remote_write_bytes(("\r\n" + self._failed_text(reason) + "\r\n").encode())
            await self.remote_close()
        except ConnectionError:  # the tab is already gone
            pass


def parse_envelope(text: str) -> tuple[str, Any]:
    """One message from the page, checked: ["stdin", str], ["resize", {width, height}],
    ["ping", str], ["focus"], ["blur"]. Anything else raises ValueError."""
    envelope = json.loads(text)  # JSONDecodeError is a ValueError
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise ValueError("not a [type, value] list")
    kind, value = envelope[0], envelope[1] if len(envelope) > 1 else None
    if kind in ("stdin", "ping") and not isinstance(value, str):
        raise ValueError(f"{kind} without text")
    if kind == "resize" and not (isinstance(value, dict) and "width" in value and "height" in value):
        raise ValueError("resize without width and height")
    if kind not in ("stdin", "resize", "ping", "focus", "blur"):
        raise ValueError("unknown type")
    return kind, value


class StudyappServer(Server):
    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        public_url: str | None,
        token: str,
        max_sessions: int,
        t: Translator,
    ) -> None:
        super().__init__(command, host=host, port=port, title="studyapp", public_url=public_url)
        self.fixed_public_url = public_url  # None: the page's own address (the request's Host)
        self.token = token
        self.max_sessions = max_sessions
        self.t = t
        self.websockets: set[web.WebSocketResponse] = set()

    # -- running -------------------------------------------------------------------------------
    def initialize_logging(self) -> None:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(OneLineFormatter())
        for name in ("studyapp.serve", "textual-serve", "aiohttp"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [handler]
            logger.propagate = False
            logger.setLevel(logging.WARNING)

    def serve_until_stopped(self, on_listening: Callable[[list[str]], None]) -> None:
        """Listen, call `on_listening(bound addresses)`, serve until SIGINT/SIGTERM. An OSError
        from binding comes out before anything was announced."""
        self.initialize_logging()
        asyncio.run(self._serve(on_listening))

    async def _serve(self, on_listening: Callable[[list[str]], None]) -> None:
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host=self.host, port=self.port)
            await site.start()
            on_listening([str(address[0]) for address in runner.addresses])
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for stop_signal in (signal.SIGINT, signal.SIGTERM):
                # Windows has no loop signal handlers: Ctrl+C comes as KeyboardInterrupt there
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(stop_signal, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()

    async def _make_app(self) -> web.Application:
        app = web.Application()
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_shutdown(self, app: web.Application) -> None:
        """The server stops: close every tab's websocket, so each session's app quits."""
        for websocket in list(self.websockets):
            await websocket.close(code=WSCloseCode.GOING_AWAY)

    # -- the page ------------------------------------------------------------------------------
    def _base_url(self, request: web.Request) -> str:
        return self.fixed_public_url or f"{request.scheme}://{request.host}"

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        if not token_matches(request.query.get("token"), self.token):
            raise web.HTTPForbidden(text=self.t("serve.page_refused"))
        base = self._base_url(request)
        websocket_url = ("wss:" if base.startswith("https") else "ws:") + base.split(":", 1)[1]
        websocket_url += f"/ws/{self.token}"
        return web.Response(
            text=page_html(
                static_url=f"{base}/static",
                websocket_url=websocket_url,
                lang=self.t.lang,
                ended=self.t("serve.page_ended"),
                restart=self.t("serve.page_restart"),
            ),
            content_type="text/html",
            headers={
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": "frame-ancestors 'none'",
            },
        )

    # -- a session -----------------------------------------------------------------------------
    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not token_matches(request.match_info.get("token"), self.token):
            log.warning(self.t("serve.refused_token", peer=request.remote))
            raise web.HTTPForbidden()
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, request.host, self.fixed_public_url):
            log.warning(self.t("serve.refused_origin", origin=(origin or "")[:200]))
            raise web.HTTPForbidden()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
        await websocket.prepare(request)
        if len(self.websockets) >= self.max_sessions:
            text = self.t("serve.too_many_sessions", count=self.max_sessions)
            log.warning(text)
            await websocket.send_bytes(("\r\n" + text + "\r\n").encode())
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=text.encode()[:120])
            return websocket
        width, height = clamp_size(request.query.get("width", "80"), request.query.get("height", "24"))
        self.websockets.add(websocket)
        session = SessionService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            failed_text=lambda reason: self.t("serve.session_failed", reason=reason),
        )
        try:
            await session.start(width, height)
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one line on the console; the server serves the next tab
            log.warning(self.t("serve.session_error", problem=f"{type(error).__name__}: {error}"))
        finally:
            self.websockets.discard(websocket)
            await session.stop()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        async for message in websocket:
            if message.type == WSMsgType.ERROR:  # e.g. over MAX_MESSAGE_BYTES: aiohttp closes it
                log.warning(self.t("serve.bad_message", size=MAX_MESSAGE_BYTES))
                break
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, value = parse_envelope(message.data)
            except ValueError:
                log.warning(self.t("serve.malformed_message", size=len(message.data)))
                continue
            if kind == "stdin":
                await app_service.send_bytes(value.encode("utf-8"))
            elif kind == "resize":
                await app_service.set_terminal_size(*clamp_size(value["width"], value["height"]))
            elif kind == "ping":
                await websocket.send_json(["pong", value])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()


def page_html(*, static_url: str, websocket_url: str, lang: str, ended: str, restart: str) -> str:
    """The page: textual-serve's terminal script and styles (served by this server), a local
    font (no fonts.googleapis.com: the page works offline), and the terminal focused once the
    session is open, so keys work without a click first."""
    static, socket_url = html.escape(static_url), html.escape(websocket_url)
    return f"""<!DOCTYPE html>
<html lang="{html.escape(lang)}">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>studyapp</title>
<link rel="stylesheet" href="{static}/css/xterm.css">
<script src="{static}/js/textual.js"></script>
<style>
@font-face {{ font-family: "Roboto Mono"; src: url("{static}/fonts/RobotoMono-VariableFont_wght.ttf"); }}
html, body {{ margin: 0; height: 100%; background: #0c181f; color: #e8e8e8; font-family: sans-serif; }}
#ended {{ display: none; position: fixed; top: 0; left: 0; right: 0; padding: 6px 12px;
  background: #5e0ba7; z-index: 10; }}
#ended a {{ color: #fff; margin-left: 1em; }}
body.-closed #ended {{ display: block; }}
</style>
</head>
<body>
<div id="ended">{html.escape(ended)}<a href="">{html.escape(restart)}</a></div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{socket_url}" data-font-size="16"></div>
<script>
window.addEventListener("load", () => {{
  let tries = 0;
  const timer = setInterval(() => {{
    const keys = document.querySelector("#terminal .xterm-helper-textarea");
    if ((keys && document.body.classList.contains("-loaded")) || ++tries > 300) {{
      clearInterval(timer);
      if (keys) keys.focus();
    }}
  }}, 100);
}});
</script>
</body>
</html>
"""


__all__ = ["MAX_COLUMNS", "MAX_ROWS", "StudyappServer", "page_html", "parse_envelope"]
