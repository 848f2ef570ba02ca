"""The serial link's byte side: non-blocking line assembly from a stream, line output.

On the board the stream is USB serial (sys.stdin / sys.stdout, shared with the REPL); under the
unix port a pty. Ctrl-C (0x03) raises KeyboardInterrupt so main.py ends and the REPL is free for
mpremote (on the board MicroPython's own keyboard interrupt usually gets there first).
Lines longer than the buffer are discarded up to their newline and reported as too long.
"""
import json
import select

MAX_LINE = 1024
# bound the work per scan cycle: on a Pico each byte costs about 57 us (a poll and a 1-byte read:
# stdin says only that a byte is there, not how many), so 256 bytes of a long line made a 14.6 ms
# cycle; 64 keep it under 4 ms, and a 1 KB line takes 16 cycles (80 ms at 200 Hz)
_BYTES_PER_POLL = 64


class Link:
    def __init__(self, rx, tx, max_line=MAX_LINE):
        self.rx = rx  # binary stream with readinto
        self.tx = tx  # text stream with write
        self.poller = select.poll()
        self.poller.register(rx, select.POLLIN)
        self.buf = bytearray(max_line)
        self.n = 0
        self.overflow = False
        self.one = bytearray(1)
        self.partial = False  # the last poll read part of a line (and took its cycle's time)

    def poll(self):
        """Read what is waiting; returns 1 when a line is complete (in buf[:n]), 2 when an
        oversized line ended, 0 otherwise. Allocation-free while idle."""
        one = self.one
        self.partial = False
        for _ in range(_BYTES_PER_POLL):
            ready = False
            for _obj, _ev in self.poller.ipoll(0):
                ready = True
            if not ready:
                return 0
            if not self.rx.readinto(one):
                return 0
            self.partial = True
            c = one[0]
            if c == 3:
                raise KeyboardInterrupt
            if c == 10 or c == 13:
                if self.overflow:
                    self.overflow = False
                    self.n = 0
                    return 2
                if self.n:
                    return 1
                continue
            if self.n >= len(self.buf):
                self.overflow = True
                continue
            if not self.overflow:
                self.buf[self.n] = c
                self.n += 1
        return 0

    def take(self):
        """The completed line as bytes; the buffer is free again."""
        line = bytes(self.buf[:self.n])
        self.n = 0
        return line

    def send(self, text):
        self.tx.write(text)
        self.tx.write("\n")

    def send_json(self, obj):
        """One line of JSON, written as it is made: a long reply (status, hello) never needs one
        big block of heap. If making it fails half-way, the line is ended so the next one is whole."""
        try:
            json.dump(obj, self.tx)
        finally:
            self.tx.write("\n")
