"""One-file plug-ins: a package whose modules each define one object under a fixed name (a question
kind's `KIND`, a TUI section's `SECTION`) is read by importing every module in it but `base`, so
adding a plug-in is adding a module."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import TypeVar

Plugin = TypeVar("Plugin")


def defined_in(package: str, path: Iterable[str], name: str, kind: type[Plugin]) -> list[Plugin]:
    """The `name` object of each module of `package` (its `__name__` and `__path__`) that defines one
    of type `kind`, in module-name order."""
    found = []
    for module_info in pkgutil.iter_modules(path):
        if module_info.name == "base":
            continue
        value = getattr(importlib.import_module(f"{package}.{module_info.name}"), name, None)
        if isinstance(value, kind):
            found.append(value)
    return found
