"""The board's entry point: build the board (sy/start.py) and run the game until Ctrl-C.

The building code is a module that is dropped once the App exists, so it does not stay on the heap;
this file stays small because the board compiles it from source at every boot.
Ctrl-C ends the loop so the REPL (and mpremote) can take over: main() starts the game again and
board_app is the running App.
"""
import gc

board_app = None


def main():
    global board_app
    import sy
    if getattr(sy, "safe_mode", False):
        return
    board_app = None
    gc.collect()
    import sy.start
    app = sy.start.build()
    sy.forget("start")
    gc.collect()
    if app is None:
        return
    board_app = app
    try:
        app.run()
    except KeyboardInterrupt:
        app.proto.stopped()  # nothing at the REPL can tag a line for Mister X (docs/fairplay.md)
        print('\n{"note": "stopped"}')  # the REPL is free; main() starts the game again


main()
