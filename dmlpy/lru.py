"""The one bounded cache of dmlpy (a dmlpy helper, not DirectML): thread-safe, the least recently used entry
dropped first. The one-liners' compiled operators, their checked bindings and prepared device calls, the devices
opened for callers' queues, and an ONNX model's compiled graphs all keep their entries in one. Imports nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class LruCache(Generic[Key, Value]):
    """At most ``capacity`` entries; a lookup that finds one makes it the most recently used. Callers make a
    missing value between ``get`` and ``put``, outside the lock, so a slow make (a kernel build, a graph
    compile) blocks no other lookup; two threads making the same key at once both use the first value put."""

    def __init__(self, capacity: int) -> None:
        self._entries: OrderedDict[Key, Value] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def capacity(self) -> int:
        return self._capacity

    @capacity.setter
    def capacity(self, capacity: int) -> None:
        """A smaller bound drops the least recently used entries at once."""
        with self._lock:
            self._capacity = capacity
            self._trim()

    def get(self, key: Key) -> Value | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Key, value: Value) -> Value:
        """Store ``value`` unless ``key`` already has one; the value kept (the earlier one, if any)."""
        with self._lock:
            kept = self._entries.setdefault(key, value)
            self._entries.move_to_end(key)
            self._trim()
            return kept

    def values(self) -> list[Value]:
        """The values, least recently used first."""
        with self._lock:
            return list(self._entries.values())

    def _trim(self) -> None:
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)
