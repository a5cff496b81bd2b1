"""The shape every frame decoder has: pure and resumable. `decode(buffer)` looks at the front of
the bytes received so far and returns how many it consumed and what they were: an event,
Garbage (bytes skipped to resynchronise), or nothing yet (an incomplete frame: consumed 0).
Never frame on timing gaps: USB-serial adapters batch bytes as they please."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from devices.events import DeviceEvent, Garbage

Decode = Callable[[bytes], tuple[int, DeviceEvent | None]]


class StreamDecoder:
    """Keeps the unconsumed bytes between reads and yields every complete item."""

    def __init__(self, decode: Decode) -> None:
        self.decode = decode
        self.buffer = b""
        self.offset = 0  # stream position of buffer[0], for Garbage offsets

    def feed(self, data: bytes) -> Iterator[DeviceEvent]:
        self.buffer += data
        while self.buffer:
            consumed, item = self.decode(self.buffer)
            if consumed == 0:
                return
            if isinstance(item, Garbage):
                item = Garbage(item.bytes, self.offset)
            self.buffer = self.buffer[consumed:]
            self.offset += consumed
            if item is not None:
                yield item
