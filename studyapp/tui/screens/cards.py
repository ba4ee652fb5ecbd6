"""The card reader: a topic outline on the left (Torch.profiler nested under PyTorch 프로파일링),
the chosen section on the right, wrapped for Korean with hanging indents for bullets.

`/` searches every card (studyapp/content/search.py): the hits replace the section on the right,
Enter on one opens its section scrolled to the matching line, Esc closes the search."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widget import AwaitMount, Widget
from textual.widgets import Input, OptionList, Static, Tree
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from studyapp.content.model import Section, Topic
from studyapp.content.render import section_lines, section_title
from studyapp.content.search import CardHit, search_cards
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.presenting import fit, topic_path
from studyapp.quiz.questions import all_questions
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

TREE_WIDTH = 28
GUIDE = 2

NodeData = tuple[str, str | None]  # (topic id, section id or None for the topic itself)
# Section kinds every card has: their names are interface words in English (the titles in the
# content are Korean); deep dives and patterns keep their own titles.
STANDARD_KINDS = ("definition", "features", "when_to_use", "exam_traps")


class CardsScreen(StudyScreen):
    CSS_PATH = "cards.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "quiz('due')", "key.quiz_topic"),
        Binding("r", "quiz('cram')", "key.cram_topic"),
        Binding("slash", "search", "key.card_search", key_display="/"),
        Binding("left_square_bracket", "step(-1)", "key.prev_section", key_display="["),
        Binding("right_square_bracket", "step(1)", "key.next_section", key_display="]"),
        Binding("escape,q", "back", "key.back", key_display="esc"),
    ]

    def __init__(self, topic: str | None = None, section: str | None = None, pushed: bool = False) -> None:
        super().__init__()
        content = self.study.content
        self.topic_id = topic if topic in content.topics else content.ordered_topics()[0].id
        self.section_id = section
        self.pushed = pushed
        self._tree_nodes: dict[NodeData, TreeNode[NodeData]] = {}
        self._leaves: list[TreeNode[NodeData]] = []
        self._hits: list[CardHit] = []

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("cards.title"), id="cards-title")
        search = Input(placeholder=self.t("cards.search_placeholder"), id="card-search")
        search.display = False
        yield search
        with Horizontal(id="cards-main"):
            yield self._build_tree()
            yield VerticalScroll(id="card-body")
        yield KeyBar()

    def _section_name(self, section: Section) -> str:
        """A section's heading: the standard kinds in the interface language, others as written."""
        if section.kind in STANDARD_KINDS and self.t.lang != "ko":
            return self.t(f"cards.kind.{section.kind}")
        if section.kind == "patterns" and self.t.lang != "ko":  # c16: the title bar was Korean
            return self.t("cards.kind.patterns")
        return section_title(section)

    def _short_title(self, section: Section) -> str:
        if section.kind in STANDARD_KINDS and self.t.lang != "ko":
            return self.t(f"cards.kind.{section.kind}")
        if section.kind == "patterns":
            return self.t("cards.patterns_short")
        if section.kind == "deep_dive":
            # "+ title": a long "추가 학습: " prefix cut siblings down to identical labels.
            return f"+ {section.title}"
        return section.title

    def _tree_width(self) -> int:
        """28 cells at 80 columns; wider terminals get longer section labels."""
        return max(TREE_WIDTH, min(44, self.app.size.width // 3))

    def _build_tree(self) -> Tree[NodeData]:
        content = self.study.content
        tree: Tree[NodeData] = Tree("cards", id="card-tree")
        tree.show_root = False
        tree.guide_depth = GUIDE
        tree.auto_expand = False
        topics = content.ordered_topics()
        children: dict[str, list[Topic]] = {}
        for topic in topics:
            if topic.parent:
                children.setdefault(topic.parent, []).append(topic)

        tree_width = self._tree_width()
        tree.styles.width = tree_width

        def add_topic(parent: TreeNode[NodeData], topic: Topic, depth: int) -> None:
            label_width = tree_width - 3 - depth * GUIDE - 2
            node = parent.add(
                Text(fit(topic.title, label_width), style="bold"), data=(topic.id, None), expand=True
            )
            self._tree_nodes[(topic.id, None)] = node
            for section in topic.sections:
                leaf = node.add_leaf(
                    Text(fit(self._short_title(section), label_width - GUIDE + 2)),
                    data=(topic.id, section.id),
                )
                self._tree_nodes[(topic.id, section.id)] = leaf
                self._leaves.append(leaf)
            for child in children.get(topic.id, []):
                add_topic(node, child, depth + 1)

        for topic in topics:
            if not topic.parent or topic.parent not in content.topics:
                add_topic(tree.root, topic, 1)
        return tree

    def on_mount(self) -> None:
        tree = self.query_one("#card-tree", Tree)
        tree.focus()
        self.show(self.topic_id, self.section_id)
        self.call_after_refresh(self._move_tree_cursor)

    def _move_tree_cursor(self) -> None:
        node = self._tree_nodes.get((self.topic_id, self.section_id)) or self._tree_nodes.get(
            (self.topic_id, None)
        )
        if node is not None:
            self.query_one("#card-tree", Tree).move_cursor(node)

    # -- showing a section ---------------------------------------------------------------------
    def show(self, topic_id: str, section_id: str | None) -> AwaitMount:
        """Show a section (awaitable: done once its lines are mounted)."""
        content = self.study.content
        topic = content.topics[topic_id]
        section = topic.section(section_id) if section_id else None
        if section is None and topic.sections:
            section = topic.sections[0]
        self.topic_id, self.section_id = topic_id, section.id if section else None
        path = topic_path(content, topic_id)
        self.query_one("#cards-title", TitleBar).set(
            f"{self.t('cards.title')} › {path}", fit(self._section_name(section), 30) if section else ""
        )
        body = self.query_one("#card-body", VerticalScroll)
        widgets: list[Widget] = [
            Static(Content(f"{topic.title}  ({topic.title_en})"), classes="card-topic", markup=False),
            Static(
                Content(
                    self.t(
                        "cards.items_labs",
                        # every question of the topic, drills too: the number Home shows (N24)
                        items=sum(1 for q in all_questions(content).values() if q.topic == topic.id),
                        labs=", ".join(topic.labs) or "-",
                    )
                ),
                classes="muted",
                markup=False,
            ),
        ]
        if section is not None:
            widgets.append(Static(Content(self._section_name(section)), classes="card-section", markup=False))
            widgets += [self._line(style, text) for style, text in section_lines(section, self.t)]
        hint = "cards.hint_in_session" if self.study.in_session() else "cards.hint"  # N16
        widgets.append(Static(Content(self.t(hint)), classes="muted hint", markup=False))
        with self.app.batch_update():
            body.remove_children()
            mounted = body.mount_all(widgets)
        body.scroll_home(animate=False)
        return mounted

    def _line(self, style: str, text: str) -> Widget:
        """One line of a section; bullets and examples get a hanging indent."""
        widget = self._line_widget(style, text)
        widget.source_text = text  # type: ignore[attr-defined]  # what a search hit scrolls to
        return widget

    def _line_widget(self, style: str, text: str) -> Widget:
        for marker in ("• ", "※ "):
            if text.startswith(marker):
                return Hanging(marker.strip(), text[len(marker) :], classes=f"card-line card-{style}")
        if style == "example":
            answer, _, rest = text.partition(": ")
            if answer in ("O", "X"):
                return Hanging(answer, rest, classes=f"card-line card-example card-example-{answer.lower()}")
        if style == "note":
            stripped = text.strip()
            marker = stripped.split(" ", 1)[0]
            return Hanging(marker, stripped[len(marker) :].strip(), classes="card-line card-note", indent=2)
        return Static(Content(text), classes=f"card-line card-{style}", markup=False)

    # -- search --------------------------------------------------------------------------------
    def action_search(self) -> None:
        field = self.query_one("#card-search", Input)
        field.display = True
        field.focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        query = event.value.strip()
        if not query:
            return
        content = self.study.content
        self._hits = search_cards(content, query)
        title = self.query_one("#cards-title", TitleBar)
        title.set(f"{self.t('cards.title')} › /{query}", self.t("cards.search_count", count=len(self._hits)))
        body = self.query_one("#card-body", VerticalScroll)
        widgets: list[Widget] = []
        if not self._hits:
            widgets.append(
                Static(Content(self.t("cards.search_none", query=query)), classes="muted", markup=False)
            )
        else:
            options = []
            for index, hit in enumerate(self._hits):
                topic = content.topics[hit.topic_id]
                section = topic.section(hit.section_id)
                where = (
                    f"{topic_path(content, hit.topic_id)} › {self._section_name(section) if section else ''}"
                )
                label = (
                    Content.assemble((where, "bold"), "\n  ", hit.snippet)
                    if hit.line
                    else Content.styled(where, "bold")
                )
                options.append(Option(label, id=str(index)))
            widgets.append(OptionList(*options, id="card-hits"))
            widgets.append(Static(Content(self.t("cards.search_hint")), classes="muted hint", markup=False))
        # The old hits must be gone before the new list mounts under the same id: a second search
        # without Esc between crashed with DuplicateIds 'card-hits' (M2).
        await body.remove_children()
        await body.mount_all(widgets)
        if self._hits:
            self.call_after_refresh(self._focus_hits)

    def _focus_hits(self) -> None:
        for hits in self.query("#card-hits"):
            hits.focus()

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hit = self._hits[int(event.option.id or 0)]
        self._close_search()
        await self.show(hit.topic_id, hit.section_id)
        node = self._tree_nodes.get((hit.topic_id, hit.section_id))
        if node is not None:
            self.query_one("#card-tree", Tree).move_cursor(node)
        body = self.query_one("#card-body", VerticalScroll)
        body.focus()
        # the matching line at the top, once the section's lines have their layout
        target = next(
            (w for w in body.children if hit.line and hit.line[:40] in getattr(w, "source_text", "")), None
        )
        if target is not None:
            self.call_after_refresh(body.scroll_to_widget, target, animate=False, top=True)

    def _close_search(self) -> None:
        field = self.query_one("#card-search", Input)
        field.display = False
        self._hits = []

    def _searching(self) -> bool:
        return self.query_one("#card-search", Input).display or bool(self.query("#card-hits"))

    # -- events and actions --------------------------------------------------------------------
    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        event.stop()
        data = event.node.data
        if data is not None and (data[0], data[1]) != (self.topic_id, self.section_id):
            if data[1] is None and data[0] == self.topic_id:
                return
            self.show(data[0], data[1])

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        event.stop()
        if event.node.data is not None and event.node.data[1] is not None:
            self.query_one("#card-body", VerticalScroll).focus()

    def action_step(self, delta: int) -> None:
        current = self._tree_nodes.get((self.topic_id, self.section_id))
        if current not in self._leaves:
            return
        index = self._leaves.index(current) + delta  # type: ignore[arg-type]
        if 0 <= index < len(self._leaves):
            node = self._leaves[index]
            assert node.data is not None
            self.show(node.data[0], node.data[1])
            self.query_one("#card-tree", Tree).move_cursor(node)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # opened from a question: s / r are not on the key bar (on_key says why)
        return not (action == "quiz" and self.study.in_session())

    def on_key(self, event: events.Key) -> None:
        """`s` / `r` on a card opened from a question: say why nothing starts (N16)."""
        if event.key in ("s", "r") and self.study.in_session() and not isinstance(self.focused, Input):
            event.stop()
            self.study.refused_in_session()

    def action_quiz(self, mode: str) -> None:
        if self.study.refused_in_session():  # opened from a question: no second session
            return
        self.study.start_quiz(SessionOptions(mode=mode, topic=self.topic_id))

    def action_back(self) -> None:
        if self._searching():  # Esc closes the search first, back to the section it left
            self._close_search()
            self.show(self.topic_id, self.section_id)
            self.query_one("#card-tree", Tree).focus()
            return
        if self.pushed:
            self.dismiss()
        else:
            self.study.switch_mode("home")
