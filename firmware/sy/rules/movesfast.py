"""sy/rules/game.py's Game.to_move as viper (native machine code), for MicroPython.

The board asks the rules which pieces still have to move after every change to the game
(sy/play/board.py, compare), twice in the scan cycle that answers a placement: in bytecode that
took 1.4 ms on a Pico (five pieces, a call and a dozen bytecodes each at a few microseconds a
bytecode), in machine code a single call. The same logic as Game.to_move and
MapGraph.free_moves in plain Python, which CPython (the host) and boards without a native code
emitter keep; tests/firmware/fw_rules.py checks that the two agree.
It reads the adjacency's packed spans as sy/rules/mapgraph.py lays them out (tools/gen_map.py).
"""
import micropython


@micropython.viper
def to_move(self) -> int:
    if int(self.phase) != 1:  # PHASE_DETECTIVES (sy/rules/base.py)
        return 0
    graph = self.graph
    start = ptr8(graph._start)
    counts = ptr8(graph._counts)
    adj = ptr8(graph.adj)
    pos = ptr8(self.pos)
    n = int(self.n_pieces)
    nd = int(self.n_detectives)
    moved = int(self.moved)
    tickets = self.tickets
    mask = 0
    i = 0
    while i < n:
        if moved & (1 << i) == 0:
            transports = 7  # a bobby pays nothing: every line is open to him
            if i < nd:
                held = ptr8(tickets[i])
                transports = 0
                if held[0]:
                    transports |= 1
                if held[1]:
                    transports |= 2
                if held[2]:
                    transports |= 4
            here = pos[i]
            lo = start[2 * here] | (start[2 * here + 1] << 8)
            packed = counts[2 * here] | (counts[2 * here + 1] << 8)
            t = 0
            while t < 3:
                hi = lo + ((packed >> (3 * t)) & 7)
                if transports & (1 << t):
                    k = lo
                    while k < hi:
                        d = adj[k]
                        j = 0
                        while j < n:
                            if pos[j] == d:
                                break
                            j += 1
                        if j == n:  # no piece holds d: a move
                            mask |= 1 << i
                            t = 3
                            break
                        k += 1
                lo = hi
                t += 1
        i += 1
    return mask
