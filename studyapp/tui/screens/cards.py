"""The card reader: a topic outline on the left (Torch.profiler nested under PyTorch 프로파일링),
the chosen section on the right, wrapped for Korean with hanging indents for bullets."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from studyapp.content.model import Section, Topic
from studyapp.content.render import section_lines, section_title
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.presenting import fit, topic_path
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

TREE_WIDTH = 28
GUIDE = 2

NodeData = tuple[str, str | None]  # (topic id, section id or None for the topic itself)


class CardsScreen(StudyScreen):
    CSS_PATH = "cards.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "quiz('due')", "key.quiz_topic"),
        Binding("r", "quiz('cram')", "key.cram_topic"),
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

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("cards.title"), id="cards-title")
        with Horizontal(id="cards-main"):
            yield self._build_tree()
            yield VerticalScroll(id="card-body")
        yield KeyBar()

    def _short_title(self, section: Section) -> str:
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
    def show(self, topic_id: str, section_id: str | None) -> None:
        content = self.study.content
        topic = content.topics[topic_id]
        section = topic.section(section_id) if section_id else None
        if section is None and topic.sections:
            section = topic.sections[0]
        self.topic_id, self.section_id = topic_id, section.id if section else None
        path = topic_path(content, topic_id)
        self.query_one("#cards-title", TitleBar).set(
            f"{self.t('cards.title')} › {path}", fit(section_title(section), 30) if section else ""
        )
        body = self.query_one("#card-body", VerticalScroll)
        widgets: list[Widget] = [
            Static(Content(f"{topic.title}  ({topic.title_en})"), classes="card-topic", markup=False),
            Static(
                Content(
                    self.t(
                        "cards.items_labs",
                        items=len(content.items_for_topic(topic.id)),
                        labs=", ".join(topic.labs) or "-",
                    )
                ),
                classes="muted",
                markup=False,
            ),
        ]
        if section is not None:
            widgets.append(Static(Content(section_title(section)), classes="card-section", markup=False))
            widgets += [self._line(style, text) for style, text in section_lines(section, self.t)]
        widgets.append(Static(Content(self.t("cards.hint")), classes="muted hint", markup=False))
        with self.app.batch_update():
            body.remove_children()
            body.mount_all(widgets)
        body.scroll_home(animate=False)

    def _line(self, style: str, text: str) -> Widget:
        """One line of a section; bullets and examples get a hanging indent."""
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
        if action == "quiz" and self.study.in_session():
            return None  # shown dimmed: opened from a question, the session must end first
        return True

    def action_quiz(self, mode: str) -> None:
        if self.study.refused_in_session():  # opened from a question: no second session
            return
        self.study.start_quiz(SessionOptions(mode=mode, topic=self.topic_id))

    def action_back(self) -> None:
        if self.pushed:
            self.dismiss()
        else:
            self.study.switch_mode("home")
