"""`yard bench pico-europe`: the Europe board (firmware/europe_main.py, sy/europe/) measured on
the emulated Raspberry Pi Pico (host/pico/), against the same heap budget as London's board
(docs/memory.md). The map is a map folder (default: tests/data/europe_testmap, made for the
tests, not the real board); the game is `yard sim --game europe --demo`'s, computer against
computer, each detective move made through the reed inputs.

  heap_free_boot_bytes    gc.mem_free() after boot (the board's `mem` command, after a collection)
  heap_used_boot_bytes    gc.mem_alloc() then
  heap_peak_used_bytes    the highest gc.mem_alloc() after events and commands, right before their
                          collection, over the whole game (sy/europe/app.py, collecting every
                          12 KB allocated as the London loop does)
  heap_used_end_bytes     gc.mem_alloc() after the game and the record download, collected
  game_completed          the game ended (or reached --rounds) and the board's record equals the
                          host's public record line for line
"""
import os
import random
import time

from host.i18n import _

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")


def add_arguments(parser):
    parser.add_argument("--micropython", metavar="RPI_PICO_UF2", help=_("MicroPython's RPI_PICO firmware "
                        "(default: $YARD_PICO_DIR/micropython-v1.28.0-RPI_PICO.uf2)"))
    parser.add_argument("--bootrom", metavar="ROM", help=_("the RP2040 boot ROM (default: $YARD_PICO_DIR)"))
    parser.add_argument("--map", metavar="FOLDER", default=TESTMAP, help=_("the map folder (default: the test map)"))
    parser.add_argument("--seed", type=int, default=6, help=_("seed of the demo game"))
    parser.add_argument("--players", type=int, default=5, help=_("detectives (1-5, default 5)"))
    parser.add_argument("--rounds", type=int, default=40, help=_("stop the game after this many rounds"))


def run(args):
    import json
    from host.europe.mapformat import load_graph
    from host.europe.pico import BOARD_MAP, europe_pico
    from host.europe.sim import PICO_TIMEOUT, EuropeLink, demo_match, play, send
    graph = load_graph(args.map, BOARD_MAP)
    rng = random.Random(args.seed)
    match = demo_match(graph, BOARD_MAP, rng, args.players)
    figures = {}
    pico = europe_pico(args.map, args.micropython, args.bootrom)
    link = None
    t0 = time.monotonic()
    try:
        pico.start()
        link = EuropeLink(pico.port, timeout=PICO_TIMEOUT)
        link.wait_ready(PICO_TIMEOUT)
        mem = link.request("mem", reset=True, watch=True)
        figures["heap_free_boot_bytes"] = mem["free"]
        figures["heap_used_boot_bytes"] = mem["alloc"]
        send(link, match.public[0])
        for c in match.game.pos:
            pico.place(c)
        stats = play(match, pico, link, rng, None, args.rounds)
        board_record = link.request("record")["lines"]
        mem = link.request("mem")
        figures["heap_peak_used_bytes"] = mem["peak"]
        figures["heap_used_end_bytes"] = mem["alloc"]
        g = match.game
        figures["game_completed"] = [json.loads(t) for t in board_record] == match.public
        figures["game_result"] = g.result
        figures["game_reason"] = g.reason
        figures["game_round"] = g.round
        figures["game_reed_moves"] = stats["reed_moves"]
        figures["game_lines"] = len(match.public)
        figures["game_wall_s"] = round(time.monotonic() - t0, 1)
    finally:
        if link:
            link.close()
        pico.stop()
    figures["map"] = os.path.relpath(args.map, ROOT) if args.map.startswith(ROOT) else args.map
    figures["micropython"] = os.path.basename(pico.micropython)
    return figures
