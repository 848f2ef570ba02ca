"""Monte-Carlo Tree Search for both sides, after Nijssen & Winands (IEEE TCIAIG 2012).

- Mister X searches the true state (he knows everything). His tree holds only his own
  decisions; the detectives between them are played by the ε-greedy policy, which chases stations
  drawn from the *public* possible set, so hiding (black tickets, surfacing tricks) pays off in
  the search as it does at the table. Black and double tickets go through move filtering
  (policy.black_ok / double_ok); a double move is two plies of his tree.
- The detectives search one piece's move at a time, guided by the heuristic: the root keeps
  the k best moves by the heuristic score and uses it as progressive bias. Each iteration draws a
  *determinization*: a station for Mister X from the public possible set, weighted by location
  categorization (how far the station is from the nearest piece; weights in CATEGORY_WEIGHTS).
  The playout runs a few rounds (detectives: the ε-greedy playout policy, which chases stations
  drawn from the possible set; Mister X: the ε-greedy heuristic Mister X) and an unfinished one
  is scored by how close the pieces stand to him. Rewards use coalition reduction: 1 if the
  searching piece itself catches him, 1 - r if a colleague does.
- Playouts are ε-greedy (policy.playout). Selection is UCB1 plus a progressive bias toward the
  heuristic's ranking, which makes small budgets behave like the heuristic and large ones better.
"""
import math
import time

from host.ai import policy, safety
from host.ai.model import Sim, bits

# weight of a possible station by its distance (moves) to the nearest detective or bobby:
# index min(d, 5). Hand-set (Mister X rarely stays next to a piece), not yet fitted to game
# statistics as the paper does; a station next to a piece keeps some weight.
CATEGORY_WEIGHTS = (0.0, 0.35, 0.8, 1.0, 1.2, 1.3)
# Mister X's root (safe=True): where some single move is safe for two moves (safety.Safety.weight),
# search only those (no double: it is kept for when he is closed in)
TWO_MOVES = False  # off: no change measured (docs/ai.md)
# Mister X's choice on a hidden move: 0 the most visited root action; p > 0 a draw with
# probability proportional to visits ** p
SAMPLE = 0  # off: no change measured (docs/ai.md)


class Node:
    __slots__ = ("n", "w", "children")

    def __init__(self):
        self.n = 0
        self.w = 0.0
        self.children = {}


class Budget:
    """Stop after `iterations` or `seconds`, whichever comes first (None: no limit)."""

    def __init__(self, seconds=1.0, iterations=None):
        self.seconds = seconds
        self.iterations = iterations

    def runner(self):
        start = time.perf_counter()
        seconds = self.seconds
        limit = self.iterations
        k = 0
        while True:
            if limit is not None and k >= limit:
                return
            # every iteration: the search must end on time, whatever his station (its length would tell it)
            if seconds is not None and k and time.perf_counter() - start >= seconds:
                return
            yield k
            k += 1


def _select(node, actions, priors, c, bias, total):
    """UCB1 + progressive bias over the actions legal now; unvisited actions first (by prior)."""
    best = None
    best_sc = -1e18
    logn = math.log(total + 1)
    children = node.children
    for i, a in enumerate(actions):
        ch = children.get(a)
        pr = priors[i]
        if ch is None or ch.n == 0:
            sc = 1e9 + pr
        else:
            sc = ch.w / ch.n + c * math.sqrt(logn / ch.n) + bias * pr / (ch.n + 1)
        if sc > best_sc:
            best_sc = sc
            best = a
    return best


# --- Mister X -------------------------------------------------------------------------------
def _mrx_actions(sim, second):
    """Actions at one of Mister X's nodes: (kind, ticket, to) with kind 0 single, 1 first half of a
    double, 2 second half; and the heuristic priors (0..1)."""
    tb = sim.tb
    pos = sim.pos
    if second:
        opts = policy.mrx_filtered_options(sim)
        acts = [(2, t, to) for to, t in opts]
    else:
        opts = policy.mrx_filtered_options(sim)
        acts = [(0, t, to) for to, t in opts]
        if policy.double_ok(sim):
            acts += [(1, t, to) for to, t in opts if _second_half_exists(sim, t, to)]
    pri = []
    for kind, t, to in acts:
        p = policy.mrx_score(tb, pos, to) / 500.0
        if kind == 1:
            p -= 0.1  # a double ticket is a resource
        pri.append(p)
    return acts, pri


def _second_half_exists(sim, t, to):
    """Whether a double move's first half (t, to) leaves Mister X a legal second half."""
    pos = sim.pos
    tb = sim.tb
    if sim.black - (t == 3) > 0:
        for d in tb.any_nbr[to]:
            if d not in pos:
                return True
        return False
    sup = sim.supply
    for d, t2 in tb.mrx_plain[to]:
        if sup[t2] - (t2 == t) > 0 and d not in pos:
            return True
    return False


def _finish_double(sim, rnd):
    """The second half of a double move begun in the tree, played greedily (away from the pieces)."""
    tb = sim.tb
    pos = sim.pos
    opts = policy.mrx_filtered_options(sim)
    to, t = max(opts, key=lambda m: policy.dmin(tb, pos, m[0]) + rnd.random())
    _apply_mrx(sim, (2, t, to))


def _apply_mrx(sim, a):
    kind, t, to = a
    if kind == 0:
        sim.mrx_move(t, to)
        return False
    sim.mrx_step(t, to)
    if kind == 1:
        return True  # his second half comes next
    sim.double -= 1
    sim._start_detectives()
    return False


def _detectives_by_policy(sim, rnd, eps, peek=0.0):
    while sim.phase == 1:
        policy.playout_detective(sim, rnd, eps, sim.to_move(), peek)


def _safe_root(sim, one):
    """The root's actions and priors when only moves out of the pieces' reach (bitmap `one`) may
    be played: safe single moves (black tickets too where no plain one is safe), the first halves
    of double moves with a safe second half (all when no single move is safe); None when no
    action is safe (the search then plays unfiltered)."""
    safe = safety.safe_actions(sim)
    if not safe:
        return None
    acts, _pri = _mrx_actions(sim, False)
    singles = [a for a in acts if a[0] == 0 and not (one >> a[2]) & 1]
    if not singles:
        singles = [(0, a[1], a[2]) for a in safe if a[0] == "move"]
    firsts = [a for a in acts if a[0] == 1 and _safe_second(sim, a, one)]
    if not singles and not firsts:
        firsts = sorted({(1, a[1], a[2]) for a in safe if a[0] == "double"})
    if TWO_MOVES and singles:
        sf = safety.Safety(sim)
        two = [a for a in singles if sf.weight(a[2], a[1]) == 1.0]
        if two:  # the root spends its iterations on moves that leave a safe move after any reply
            singles = two
            firsts = []
    out = singles + firsts
    pri = [policy.mrx_score(sim.tb, sim.pos, to) / 500.0 - 0.1 * (kind == 1) for kind, _t, to in out]
    return out, pri


def _safe_second(sim, first, one):
    probe = sim.copy()
    probe.mrx_step(first[1], first[2])
    return any(not (one >> to) & 1 for to, _t in probe.mrx_options_from(first[2]))


def _safe_seconds(sim, one):
    """A double move's second halves that end out of reach (all of them if none does)."""
    acts = [(2, t, to) for to, t in sim.mrx_options_from(sim.mrx) if not (one >> to) & 1]
    if not acts:
        return _mrx_actions(sim, True)
    return acts, [policy.mrx_score(sim.tb, sim.pos, to) / 500.0 for _k, _t, to in acts]


def search_mrx(game, budget, rnd, c=0.7, bias=1.0, eps=0.1, safe=False, peek=0.0):
    """Mister X's choice for a rules.Game in which he is to move (full information).
    Returns (("move", t, to) | ("double", t1, to1, t2, to2), stats).
    safe: his choices now keep out of every piece's reach where they can (host/ai/safety.py).
    peek: how often the playouts' detectives chase him rather than a possible station (detectives
    who know his code know more than the public set)."""
    root_sim = Sim.from_game(game, game.mrx)
    root = Node()
    one = safety.reach(root_sim) if safe else 0
    root_acts = _safe_root(root_sim, one) if safe else None
    for _ in budget.runner():
        sim = root_sim.copy()
        node = root
        path = [root]
        second = False
        while sim.result is None:
            if root_acts and node is root:
                acts, pri = root_acts
            elif root_acts and second and len(path) == 2:
                acts, pri = _safe_seconds(sim, one)
            else:
                acts, pri = _mrx_actions(sim, second)
            if not acts:  # cannot happen after a legal first half; keep going safely
                break
            a = _select(node, acts, pri, c, bias, node.n)
            child = node.children.get(a)
            new = child is None
            if new:
                child = node.children[a] = Node()
            second = _apply_mrx(sim, a)
            node = child
            path.append(node)
            if not second:
                _detectives_by_policy(sim, rnd, eps, peek)
            if new:
                break
        if second:  # the tree stopped between the halves of a double move
            if root_acts:
                acts, _pri = _safe_seconds(sim, one)
                _apply_mrx(sim, max(acts, key=lambda a: policy.dmin(sim.tb, sim.pos, a[2]) + rnd.random()))
            else:
                _finish_double(sim, rnd)
            _detectives_by_policy(sim, rnd, eps, peek)
        policy.playout(sim, rnd, eps, peek)
        r = 1.0 if sim.result == "mrx" else 0.0
        for nd in path:
            nd.n += 1
            nd.w += r
    # the most visited first action (then, for a double, the most visited second half); on a
    # hidden move with SAMPLE, a draw by visits (a detective who replays the search finds it less often)
    first = max(root.children.items(), key=lambda kv: (kv[1].n, kv[1].w))
    if SAMPLE and (root_sim.moves + 1) not in root_sim.reveals:
        items = sorted(root.children.items(), key=lambda kv: -kv[1].n)
        x = rnd.random() * sum(nd.n ** SAMPLE for _a, nd in items)
        for kv in items:
            x -= kv[1].n ** SAMPLE
            if x < 0:
                first = kv
                break
    (kind, t, to), node = first
    stats = {"iterations": root.n, "value": node.w / node.n if node.n else 0.0, "root": root}
    if kind == 0:
        return ("move", t, to), stats
    if node.children:
        (k2, t2, to2), _n2 = max(node.children.items(), key=lambda kv: (kv[1].n, kv[1].w))
    else:  # never expanded: fall back to the heuristic's second half
        sim = root_sim.copy()
        sim.mrx_step(t, to)
        acts = _safe_seconds(sim, one) if root_acts else _mrx_actions(sim, True)
        _k, t2, to2 = max(_zip(*acts), key=lambda x: x[1])[0]
    return ("double", t, to, t2, to2), stats


def _zip(acts, pri):
    return list(zip(acts, pri))


# --- detectives -----------------------------------------------------------------------------
def category_weights(sim, cands, weights=CATEGORY_WEIGHTS):
    tb = sim.tb
    pos = sim.pos
    out = []
    for s in cands:
        d = policy.dmin(tb, pos, s)
        out.append(weights[d if d < 5 else 5])
    return out


def _det_actions(sim):
    mask = sim.to_move()
    p = (mask & -mask).bit_length() - 1
    return p, sim.legal(p)


def _det_scores(sim, opts, cands, ws, wsum):
    """The heuristic detective's score of each move (lower is better): category-weighted mean
    distance to the possible stations, half the nearest one, the ticket's cost, and a bonus for
    stepping on a possible station."""
    tb = sim.tb
    n = len(cands) or 1
    out = []
    for to, t in opts:
        row = tb.dist[to]
        tot = 0.0
        near = policy.INF
        for c, w in zip(cands, ws):
            d = row[c]
            tot += w * d
            if d < near:
                near = d
        sc = tot / wsum + 0.5 * near + policy.TICKET_COST[t]
        if (sim.cand >> to) & 1:
            sc -= 3.0 / n + 0.5
        out.append(sc)
    return out


def _mrx_model(sim, rnd, eps):
    """Mister X inside the detectives' playouts: the heuristic Mister X (he knows where he is in
    the determinization), ε-greedy."""
    if rnd.random() < eps:
        opts = policy.mrx_filtered_options(sim)
        to, t = opts[rnd.randrange(len(opts))]
        sim.mrx_move(t, to)
        return
    a = policy.heuristic_mrx(sim, rnd)
    if a[0] == "move":
        sim.mrx_move(a[1], a[2])
    else:
        sim.mrx_double(a[1], a[2], a[3], a[4])


def _det_eval(sim, alpha=0.3):
    """Value (0..0.6) of a determinized state at the playout horizon for the detectives: close to
    Mister X (nearest piece, plus alpha times the mean); a detective with no usable ticket left
    counts as far away."""
    row = sim.tb.dist[sim.mrx]
    pos = sim.pos
    mn = policy.INF
    tot = 0
    for i in range(sim.n_pieces):
        d = row[pos[i]]
        if i < sim.n_det and not sim.can_move(i):
            d = 8
        if d < mn:
            mn = d
        tot += d
    e = mn + alpha * tot / sim.n_pieces
    v = 1.0 - e / (6.0 + 6.0 * alpha)
    return 0.6 * v if v > 0 else 0.0


def search_detective(view, budget, rnd, k=4, c=0.5, bias=1.0, eps=0.1, reduction=0.1, horizon=3,
                     weights=CATEGORY_WEIGHTS, belief=None, focus=None):
    """The next detective move for a public view (a rules.Game in secret mode, mrx == 0):
    ((piece, ticket, to), stats). The piece is the lowest-numbered one that still has to move.

    A heuristic-guided search: the root keeps the k best moves by the heuristic score (category-
    weighted distances), with the heuristic as progressive bias; each iteration draws Mister X's
    station from the public possible set by location category, plays the chosen move, then the
    game on for `horizon` rounds (detectives: ε-greedy playout policy chasing possible stations;
    Mister X: the ε-greedy heuristic), and scores a capture 1 (1 - reduction when a colleague
    makes it: coalition reduction), Mister X's escape 0, and an unfinished playout by _det_eval.

    belief ({station: probability}, host/ai/belief.py): his station is drawn from it (times the
    category weight) instead of evenly over the public set; focus (a bitmap within the public
    set): the stations the heuristic and the playouts chase."""
    root_sim = Sim.from_game(view, 0)
    if focus:
        root_sim.cand = focus
    cands = bits(root_sim.cand)
    cw = category_weights(root_sim, cands, weights)
    if belief:
        cw = [w * belief.get(s, 0.0) for w, s in zip(cw, cands)]
    if not sum(cw):
        cw = [1.0] * len(cands)
    cum = []
    acc = 0.0
    for w in cw:
        acc += w
        cum.append(acc)
    root_piece, root_opts = _det_actions(root_sim)
    if len(root_opts) == 1:
        to, t = root_opts[0]
        return (root_piece, t, to), {"iterations": 0, "value": 0.0}
    sc = _det_scores(root_sim, root_opts, cands, cw, acc)
    order = sorted(range(len(root_opts)), key=lambda i: sc[i])[:k]
    acts = [root_opts[i] for i in order]
    pri = [sc[order[0]] - sc[i] for i in order]
    root = Node()
    end_round = root_sim.round + horizon
    for _ in budget.runner():
        sim = root_sim.copy()
        x = rnd.random() * acc
        lo, hi = 0, len(cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        sim.mrx = cands[lo]
        a = _select(root, acts, pri, c, bias, root.n)
        child = root.children.get(a)
        if child is None:
            child = root.children[a] = Node()
        sim.move(root_piece, a[1], a[0])
        while sim.result is None:
            if sim.phase == 0:
                if sim.round >= end_round:
                    break
                _mrx_model(sim, rnd, eps)
            else:
                policy.playout_detective(sim, rnd, eps, sim.to_move())
        if sim.result is None:
            r = _det_eval(sim)
        elif sim.result == "detectives":
            r = 1.0 - reduction if sim.reason == "capture" and sim.capturer != root_piece else 1.0
        else:
            r = 0.0
        root.n += 1
        child.n += 1
        child.w += r
    (to, t), node = max(root.children.items(), key=lambda kv: (kv[1].n, kv[1].w))
    return (root_piece, t, to), {"iterations": root.n, "value": node.w / node.n if node.n else 0.0}
