"""Entry point of a board that plays Mister X - Flight through Europe (docs/europe-board.md).
Copy it as main.py onto a board with a Europe board on top; the London main.py is not loaded."""


def main():
    from sy.europe.app import build
    app = build()
    try:
        app.run()
    except KeyboardInterrupt:
        print('\n{"note": "stopped"}')  # the REPL is free; main() starts the game again


main()
