"""The `mem` command (docs/protocol.md): the heap and the longest scan cycles, as the benchmarks and
the tests read them. Loaded for each `mem` and dropped after it (sy/link/proto.py's command table):
the reading and resetting of the measurements stay out of the line protocol's own path, and this
code is not on the heap it measures."""
import gc


def handle(proto, msg):
    app = proto.app
    if app and msg.get("watch") is not None:  # read the heap in use at each collection (slow on a Pico)
        app.watch_heap = bool(msg["watch"])
    if not hasattr(gc, "mem_alloc"):
        return {"watching": app.watch_heap} if app else {}
    gc.collect()
    out = {"alloc": gc.mem_alloc(), "free": gc.mem_free()}
    if app:
        out["watching"] = app.watch_heap
        out["peak"] = app.mem_peak
        out["cycle_max_us"] = app.cycle_max_us
        out["cycle_max_kind"] = app.cycle_max_kind
        out["save_cycle_max_us"] = app.save_cycle_max_us
        out["command_cycle_max_us"] = app.command_cycle_max_us
        out["frame_cycle_max_us"] = app.frame_cycle_max_us
        out["save_max_us"] = proto.board.save_max_us
        if msg.get("reset"):  # measure the next stretch on its own
            app.mem_peak = app.cycle_max_us = app.save_cycle_max_us = app.command_cycle_max_us = 0
            app.frame_cycle_max_us = 0
            proto.board.save_max_us = 0
    return out
