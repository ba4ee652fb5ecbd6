"""The driver a `studyapp serve` session runs under: textual's web driver, which also ends the app
when the server is gone.

textual-serve talks to each session over its stdin/stdout pipes. Textual's own web driver stops
reading when stdin reaches end-of-file but leaves the app running, so a session outlived a
kill -9 of the server (nobody left to see it, still holding the learner's store). Here the end
of stdin ends the app, as closing the browser tab does. Reading stdin to its end works the same
on Linux, macOS and Windows (both of textual's input readers stop there), so no parent-pid
polling is needed.
"""

from __future__ import annotations

import asyncio
import os

from textual import messages
from textual.drivers.web_driver import WebDriver

# If the app has not ended this long after its server went away (a screen stuck in a long
# computation), the process ends anyway: nothing can be shown to anyone any more, and every
# answer is committed to the store when it is given.
EXIT_GRACE_S = 10.0


class ServedWebDriver(WebDriver):
    """`TEXTUAL_DRIVER=studyapp.tui.web_driver:ServedWebDriver` (set by `studyapp serve`)."""

    def run_input_thread(self) -> None:
        super().run_input_thread()
        if self.exit_event.is_set():  # the app is stopping on its own (quit, closed tab)
            return
        # stdin ended without a "quit" from the server: the server is gone
        # Not call_from_thread: it would wait for a busy app, and the grace below must count.
        asyncio.run_coroutine_threadsafe(self._app._post_message(messages.ExitApp()), loop=self._loop)
        if not self.exit_event.wait(EXIT_GRACE_S):
            os._exit(1)
