"""Modules loaded on first use, so that `nestsim run` starts its engine before numpy and pyarrow
have loaded (~0.1 CPU-s together, most of a small run's start; issue 64).

``np = lazy("numpy", globals(), "np")`` binds a stand-in that imports the module on its first
attribute access and then puts the real module in its place, so later uses cost nothing extra.
``preload`` imports modules on a background thread while the engine runs (it releases the GIL):
on a machine with a second core the import then costs no wall time.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Iterable, MutableMapping


class _Lazy:
    __slots__ = ("_name", "_into", "_alias")

    def __init__(self, name: str, into: MutableMapping[str, Any], alias: str):
        self._name, self._into, self._alias = name, into, alias

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        self._into[self._alias] = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy(name: str, into: MutableMapping[str, Any], alias: str) -> Any:
    """A stand-in for module ``name`` bound as ``alias`` in the namespace ``into``."""
    return _Lazy(name, into, alias)


def preload(names: Iterable[str]) -> threading.Thread:
    """Starts importing ``names`` on a thread and returns it. An import error is left for the
    first real use to raise (with its usual traceback), not raised here.

    The thread is not a daemon: an interpreter leaving early (a run refused with exit 2 after its
    engine started) waits for the imports to finish instead of finalising under a thread that is
    half-way through initialising numpy's C extension, which could end the process by a signal
    after the error was printed (seen once in the mutation test, under its address-space cap)."""

    def load() -> None:
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - reported where the module is used
                return

    t = threading.Thread(target=load, name="nestsim-preload", daemon=False)
    t.start()
    return t
