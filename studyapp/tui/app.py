"""The Textual app: a thin shell over the quiz engine, the progress store and the lab runner.

`make_app(...)` builds it (the CLI and the tests both use it). Top-level sections are Textual
modes (one module each in `studyapp/tui/sections/`), each with its own screen stack; a quiz session is
pushed on top of the section it was started from and comes back to it when it ends. Screens
are imported lazily so `studyapp quiz` shows its first question without loading the others.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime, tzinfo
from functools import partial
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

from studyapp import startup
from studyapp.content.model import Content
from studyapp.errors import StudyappError
from studyapp.i18n import Translator
from studyapp.progress import goals
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions, default_kind
from studyapp.quiz.questions import Question
from studyapp.tui.sections import section_ids, sections
from studyapp.tui.strings import translate_bindings

# Set to make the app exit right after the first question has been painted (startup benchmark).
EXIT_AFTER_FIRST_PAINT = "STUDYAPP_EXIT_AFTER_FIRST_PAINT"
THEME_META_KEY = "ui.theme"
SIZE_META_KEY = "ui.session_size"
SESSION_SIZES = (10, 20, 40)  # Home `z` cycles through them; 20 = the engine's default
PRACTICE_KINDS = (
    "drill",
    "glossary",
    "choice",
    "ox",
    "trace",
    "trace-drill",
)  # the palette's "only this kind" sessions


class StudyCommands(Provider):
    """Command palette: one entry per action of the app, in the interface language."""

    def _entries(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = self.app
        assert isinstance(app, StudyApp)
        t = app.t
        home, *others = sections()
        entries: list[tuple[str, str, Callable[[], Any]]] = [
            (t("cmd.home"), t("cmd.home.help"), partial(app.action_section, home.id)),
        ]
        for mode in ("due", "new", "wrong", "exam", "cram"):
            entries.append(
                (t(f"cmd.quiz.{mode}"), t(f"cmd.quiz.{mode}.help"), partial(app.action_quiz, mode))
            )
        # One question kind at a time (m9: "계산 문제만" only existed as `studyapp quiz --kind drill`).
        for kind in PRACTICE_KINDS:
            entries.append(
                (t(f"cmd.kind.{kind}"), t(f"cmd.kind.{kind}.help"), partial(app.action_quiz_kind, kind))
            )
        for section in others:
            entries.append(
                (t(f"cmd.{section.id}"), t(f"cmd.{section.id}.help"), partial(app.action_section, section.id))
            )
        entries.append((t("cmd.notebook"), t("cmd.notebook.help"), app.action_notebook))
        entries.append((t("cmd.explain"), t("cmd.explain.help"), app.action_explain))
        entries.append((t("cmd.help"), t("cmd.help.help"), app.action_help))
        entries.append((t("cmd.quit"), t("cmd.quit.help"), app.action_quit))
        return entries

    async def discover(self) -> Hits:
        for title, help_text, callback in self._entries():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._entries():
            score = max(matcher.match(title), matcher.match(help_text) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


def study_palette(t: Translator, **kwargs: Any) -> Screen[Any]:
    """Textual's command palette, saying "no matches" in the interface language (N12)."""
    from rich.align import Align
    from rich.text import Text
    from textual.command import CommandList, CommandPalette

    class StudyPalette(CommandPalette):
        def _start_no_matches_countdown(self, search_value: str) -> None:
            # Textual adds its English line after a short countdown; ours replaces it just after.
            super()._start_no_matches_countdown(search_value)
            self.set_timer(self._NO_MATCHES_COUNTDOWN + 0.05, self._say_no_matches)

        def _say_no_matches(self) -> None:
            # no such line (a match came in meanwhile): nothing to say
            with contextlib.suppress(Exception):
                self.query_one(CommandList).replace_option_prompt(
                    self._NO_MATCHES, Align.center(Text(t("cmd.no_matches"), style="not bold"))
                )

    return StudyPalette(**kwargs)


class StudyApp(App[int]):
    """studyapp's TUI. Build it with `make_app`."""

    CSS_PATH = "app.tcss"
    TITLE = "studyapp"
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {
        section.id: section.make_screen for section in sections()
    }
    COMMANDS = App.COMMANDS | {StudyCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "key.help", key_display="F1", id="help"),
        Binding("ctrl+p", "command_palette", "key.palette", show=False, priority=True, id="palette"),
        *(section.binding() for section in sections()),
    ]

    def __init__(
        self,
        content: Content,
        store: ProgressStore,
        lang: str | None = None,
        start: str = "home",
        options: SessionOptions | None = None,
        tz: tzinfo | None = None,
    ) -> None:
        self.content = content
        self.store = store
        self.t = Translator(lang)

        self.start = start
        self.options = options
        self.tz = tz
        self._lab_registry: dict[str, Any] | None = None
        self._notice_shown = False
        # `studyapp quiz --topic nope` must fail as one line before the terminal is taken over.
        self._first_session = (
            QuizSession(content, store, options or SessionOptions()) if start == "quiz" else None
        )
        super().__init__()
        translate_bindings(self, self.t)
        saved = store.get_meta(THEME_META_KEY)
        if saved and saved in self.available_themes:
            self.theme = saved

    def run(self, *args: Any, **kwargs: Any) -> int | None:
        """Refuse to draw into a pipe: `printf 'o\\n' | studyapp quiz` would wait forever for keys
        that never come. One line and exit 2 instead (the CLI checks first; this is the TUI's own
        guard for any other caller). Headless runs (tests, snapshots) are not terminals anyway."""
        # A driver named in $TEXTUAL_DRIVER (textual-serve's web driver: `studyapp serve`) talks
        # over the pipes on purpose.
        driven = bool(os.environ.get("TEXTUAL_DRIVER"))
        if not kwargs.get("headless") and not driven and not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise StudyappError(self.t("tui.needs_terminal"))
        return super().run(*args, **kwargs)

    # -- time and shared data ------------------------------------------------------------------
    def now(self) -> datetime:
        return self.store.clock()

    def lab_registry(self) -> dict[str, Any]:
        """All labs (id → LabInfo); empty when the lab runner or the labs are missing."""
        if self._lab_registry is None:
            try:  # PyYAML and the labs' metadata load when a screen first asks for them
                from studyapp.labrunner import registry

                self._lab_registry = registry.discover()
            except Exception:  # no labs dir, unreadable lab.yaml: the rest of the app still works
                self._lab_registry = {}
        return self._lab_registry

    def lab_questions(self) -> set[str]:
        return {lab_id for lab_id, info in self.lab_registry().items() if info.check_question}

    # -- startup -------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        if self._first_session is not None:
            # Screens load on first use: importing all of them up front costs ~40 % more start-up.
            from studyapp.tui.screens.quiz import QuizScreen

            # The quiz screen's rules are in app.tcss, so it can be the default screen (the
            # fastest first paint). Other screens have a CSS_PATH, which Textual reads when a
            # screen is pushed, not for a default screen: they open on Home (see on_mount).
            return QuizScreen(self._first_session.options, session=self._first_session)
        return super().get_default_screen()

    def _opening_screen(self) -> Screen[Any] | None:
        """The screen `studyapp quiz --mode exam` or `studyapp explain [ID]` opens on, pushed over
        Home so that its stylesheet loads and Esc comes back to Home."""
        if self.start == "exam" and self.options is not None:  # `studyapp quiz --mode exam`
            # Screens load on first use: importing all of them up front costs ~40 % more start-up.
            from studyapp.quiz.exam_resume import resumable
            from studyapp.tui.screens.exam import ExamIntroScreen

            session: Any = self.options
            # The same offer as Home's `e` (m4); a `--resume` intro is that attempt already.
            unfinished = None if session.resumed else resumable(self.store, self.now())
            return ExamIntroScreen(session, unfinished=unfinished)
        if self.start.startswith("explain:"):  # `studyapp explain [ID]`
            return self._explain_screen(prompt_id=self.start.removeprefix("explain:"))
        return None

    def on_mount(self) -> None:
        # studyapp.cli.common.run_tui held the cyclic collector for the start: the first frame ends it
        self.call_after_refresh(startup.first_frame_shown)
        self.theme_changed_signal.subscribe(self, self._save_theme)
        if self.start != "quiz":
            self.switch_mode(self.start if self.start in section_ids() else "home")
            opening = self._opening_screen()
            if opening is not None:
                self.push_screen(opening)
        if self.store.notice and not self._notice_shown:
            self._notice_shown = True
            self.notify(
                self.store.notice, title=self.t("notice.title"), severity="warning", timeout=15, markup=False
            )

    def _save_theme(self, theme: Any) -> None:
        name = getattr(theme, "name", None)
        if name and name != self.store.get_meta(THEME_META_KEY):
            self.save(partial(self.store.set_meta, THEME_META_KEY, name))

    def save(self, write: Callable[[], object]) -> bool:
        """Run one store write; a failing write (disk full, read-only, locked too long) is a toast,
        never the traceback that would end the app. Returns whether the write went through."""
        try:
            write()
        except StudyappError as exc:
            self.notify(str(exc), title=self.t("notify.not_saved_setting"), severity="error", markup=False)
            return False
        return True

    # -- Textual's own commands, in the interface language -------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Theme and screenshot only: Quit is already ours (no duplicate), and F1 lists the keys."""
        t = self.t
        yield SystemCommand(t("cmd.theme"), t("cmd.theme.help"), self.action_change_theme)
        yield SystemCommand(t("cmd.screenshot"), t("cmd.screenshot.help"), lambda: self.action_screenshot())

    def action_command_palette(self) -> None:
        from textual.command import CommandPalette

        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(study_palette(self.t, id="--command-palette", placeholder=self.t("cmd.search")))

    def search_themes(self) -> None:
        from textual.theme import ThemeProvider

        self.push_screen(
            study_palette(self.t, providers=[ThemeProvider], placeholder=self.t("cmd.search_themes"))
        )

    def action_help_quit(self) -> None:
        """ctrl+c: say how to quit, in the interface language (Textual's text is English)."""
        self.notify(self.t("notify.how_to_quit"), title=self.t("notify.how_to_quit.title"))

    # -- navigation ----------------------------------------------------------------------------
    def in_session(self) -> bool:
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam import ExamScreen
        from studyapp.tui.screens.quiz import QuizScreen

        return any(isinstance(screen, (QuizScreen, ExamScreen)) for screen in self.screen_stack)

    def refused_in_session(self) -> bool:
        """During a session, F2–F6 and the other section keys stay enabled so that they can say
        why they do nothing, naming the key that ends it where the learner is; the answers are
        already saved."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam import ExamScreen

        if self.in_session():
            in_exam = any(isinstance(screen, ExamScreen) for screen in self.screen_stack)
            self.notify(self.t("notify.finish_exam_first" if in_exam else "notify.finish_session_first"))
            return True
        return False

    async def action_quit(self) -> None:
        """Ctrl+Q and the palette's Quit. A screen that would lose something (a timed mock exam,
        explain-it key points not saved yet) asks first through its `confirm_quit`."""
        for screen in reversed(self.screen_stack):  # a help or palette screen may be on top
            confirm = getattr(screen, "confirm_quit", None)
            if callable(confirm):
                if confirm():
                    return
                break
        self.exit()

    def action_section(self, name: str) -> None:
        if self.refused_in_session():
            return
        if name not in section_ids():
            return
        self.switch_mode(name)

    def action_quiz(self, mode: str = "due", topic: str | None = None, checklist: str | None = None) -> None:
        """Start a session on top of the current section."""
        if self.refused_in_session():
            return
        if mode == "exam":  # a timed mock exam: intro, sitting, result (studyapp/quiz/exam.py)
            self.start_exam(topic=topic, checklist=checklist)
            return
        count = self.session_size() if mode in ("due", "new", "cram") else None
        # The same question mix as `studyapp quiz` without --kind: 4-choice questions among the O/X.
        kind = default_kind(mode)
        self.start_quiz(SessionOptions(mode=mode, topic=topic, checklist=checklist, count=count, kind=kind))

    def action_quiz_kind(self, kind: str) -> None:
        """A due session of one question kind: its due questions first, then new ones."""
        if self.refused_in_session():
            return
        self.start_quiz(SessionOptions(mode="due", count=self.session_size(), kind=kind))

    def session_size(self) -> int:
        saved = self.store.get_meta(SIZE_META_KEY)
        return int(saved) if saved and saved.isdigit() and int(saved) in SESSION_SIZES else SESSION_SIZES[1]

    def cycle_session_size(self) -> None:
        index = SESSION_SIZES.index(self.session_size())
        self.save(
            partial(self.store.set_meta, SIZE_META_KEY, str(SESSION_SIZES[(index + 1) % len(SESSION_SIZES)]))
        )

    def start_quiz(self, options: SessionOptions, questions: list[Question] | None = None) -> None:
        """Push a session: chosen by `options`, or exactly `questions` (tests, custom drills)."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.quiz import QuizScreen

        session = QuizSession(self.content, self.store, options, questions=questions)
        self.push_screen(QuizScreen(options, session=session))

    def start_exam(self, topic: str | None = None, checklist: str | None = None) -> None:
        """Push the mock exam's intro (default settings; the intro's keys change them)."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.quiz.exam import ExamSession, ExamSettings
        from studyapp.quiz.exam_resume import resumable
        from studyapp.tui.screens.exam import ExamIntroScreen

        # The learner's own pass mark (settings, F8) unless the intro's p changes it.
        settings = ExamSettings(
            topic=topic,
            checklist=checklist,
            pass_mark=goals.pass_mark(self.store) or 0.6,
            topic_cutoff=goals.topic_cutoff(self.store),  # 과락 (settings, F8)
        )
        try:
            session = ExamSession(self.content, self.store, settings)
        except StudyappError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.push_screen(ExamIntroScreen(session, unfinished=resumable(self.store, self.now())))

    def _explain_screen(self, prompt_id: str | None = None, checklist: str | None = None) -> Screen[Any]:
        # content.explain reads YAML (PyYAML ~50 ms to import): only when explain-it opens.
        from studyapp.content.explain import load_explain, prompts_for
        from studyapp.tui.screens.explain import ExplainScreen

        prompts = load_explain(self.content)
        if checklist is not None:
            prompts = prompts_for(prompts, checklist)
        return ExplainScreen(prompts, start=prompt_id)

    def action_explain(self, checklist: str | None = None) -> None:
        """Explain-it prompts (all, or one checklist item's), pushed on the current section."""
        if self.refused_in_session():
            return
        try:
            screen = self._explain_screen(checklist=checklist)
        except StudyappError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.push_screen(screen)

    def open_lab(self, lab_id: str | None) -> None:
        """Show the labs screen on one lab (pushed, so Esc comes back here)."""
        if not self.lab_registry():
            self.notify(self.t("notify.no_labs"), severity="warning")
            return
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.labs import LabsScreen

        self.push_screen(LabsScreen(select=lab_id, pushed=True))

    def close_session(self) -> None:
        """Leave a quiz and its summary: back to the section below, or home when started on a quiz."""
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.quiz import QuizScreen
        from studyapp.tui.screens.summary import SummaryScreen

        session_screens = (QuizScreen, SummaryScreen)
        while isinstance(self.screen, session_screens) and len(self.screen_stack) > 1:
            self.pop_screen()
        if isinstance(self.screen, session_screens):  # `studyapp quiz` started on the question
            self.switch_mode("home")

    def action_notebook(self) -> None:
        """The wrong-answer notebook, pushed on the current section (Esc comes back)."""
        if self.refused_in_session():
            return
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.notebook import NotebookScreen

        self.push_screen(NotebookScreen(pushed=True))

    def action_help(self) -> None:
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def first_question_painted(self) -> None:
        """Called by the quiz screen once its first question is mounted (startup benchmark).

        With $STUDYAPP_EXIT_AFTER_FIRST_PAINT set, the app exits after that frame; when the value is
        a file path, the wall-clock time of the paint is written there first.
        """
        target = os.environ.get(EXIT_AFTER_FIRST_PAINT)
        if target:
            self.call_after_refresh(self._exit_after_paint, target)

    def _exit_after_paint(self, target: str) -> None:
        if target not in ("1", "yes", "true"):
            with open(target, "w", encoding="utf-8") as marker:
                marker.write(repr(time.time()))
        self.exit(0)


def make_app(
    content: Content,
    store: ProgressStore,
    lang: str | None = None,
    start: str = "home",
    options: SessionOptions | None = None,
    tz: tzinfo | None = None,
) -> StudyApp:
    """Build the app on explicit content and a store (tests pass their own; nothing global)."""
    return StudyApp(content=content, store=store, lang=lang, start=start, options=options, tz=tz)
