"""`yard replay` (London and Europe records, Europe map folders) survives any input: a clear
verdict or error and an exit status, never a traceback. Named cases first, then hypothesis
mutating real records and the map made for the tests (not the real board)."""
import contextlib
import io
import json
import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from europe_games import ROOT, TESTMAP, public, random_record
from host.commands import replay
from host.commands.cli import build_parser
from host.errors import BoardError, UserError
from host.misterx import record as london_record
from sy.europe import record as europe_record

EXAMPLES = os.path.join(ROOT, "examples")
EXIT_STATUSES = {0, 1, 2, 4}  # fine, a line refused, a user mistake, game in progress


def yard_replay(*argv):
    """(exit status, stdout, stderr) of `yard replay ARGV`, in this process: what main() does with
    the command's errors, and nothing else, so any other exception fails the test."""
    args = build_parser().parse_args(["replay", *argv])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = replay.run(args) or 0
        except (UserError, BoardError) as e:
            print("yard replay: %s" % e, file=err)
            status = e.exit_code
    return status, out.getvalue(), err.getvalue()


def replay_text(text, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "record.jsonl")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        return yard_replay(path, *extra)


def lines_of(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read().splitlines()


LONDON = lines_of("capture.jsonl")
LONDON_BOARD = lines_of("capture.board.jsonl")
EUROPE, _ = random_record(3)
EUROPE_PUBLIC, _ = public(EUROPE)


# --- the named cases -------------------------------------------------------------------------
def test_json_nested_too_deeply_is_refused_in_both_formats():
    deep = "[" * 2000 + "]" * 2000
    deep_obj = '{"type": ' * 1500 + "1" + "}" * 1500
    for reader in (london_record.Replayer(), europe_record.Replayer()):
        for text in (deep, deep_obj):
            verdict = reader.feed(text)
            assert (verdict["ok"], verdict["error"]) == (False, "bad_input")
    for first in (LONDON[0], EUROPE[0]):
        status, out, err = replay_text(first + "\n" + deep + "\n")
        assert status == 1 and "Traceback" not in err
        assert json.loads(out.splitlines()[1])["error"] == "bad_input"


def test_a_setup_with_mister_x_off_the_map_is_refused():
    setup = json.loads(EUROPE[0])
    for mrx in (256, -1, 10 ** 40, 0.5, True, "13"):
        v = europe_record.Replayer().feed(json.dumps(dict(setup, mrx=mrx)))
        assert (v["ok"], v["error"]) == (False, "bad_input"), mrx
        assert (v["why"], v["args"]) == ("field", ["mrx"]), v


def spent_lamps_record(rounds):
    """A public record on a bag of 255 of every kind whose one detective spends three car lamps on
    an extra move every round and draws them again: more car lamps than the bag ever held."""
    bag = {"%s/%s" % (t, s): 255 for t in ("car", "train", "plane")
           for s in ("footprints", "silhouettes", "magnifier", "lamp")}
    lines = [{"type": "setup", "game": "europe", "version": 1, "map": "europe_testmap", "level": "green",
              "detectives": [9], "mrx": None, "bag": bag},
             {"type": "draw", "hand": "X", "count": 8}, {"type": "draw", "hand": "P1", "tickets": ["car/lamp"] * 5}]
    for r in range(rounds):
        there, back = (16, 9) if r % 2 == 0 else (9, 16)
        lines += [{"type": "mrx", "moves": [{"ticket": "car/footprints"}]},
                  {"type": "draw", "hand": "X", "count": 1},
                  {"type": "move", "piece": "D1", "ticket": "car/lamp", "to": 10},
                  {"type": "extra", "piece": "D1", "spend": {"P1": ["car/lamp"] * 3}, "to": there},
                  {"type": "draw", "hand": "P1", "tickets": ["car/lamp"] * 4},
                  {"type": "check", "shown": []}]
        del back
    return [json.dumps(line) for line in lines]


def test_a_public_record_cannot_spend_more_tickets_than_the_bag_held():
    verdicts = list(europe_record.replay(spent_lamps_record(100)))
    refused = [v for v in verdicts[:-1] if not v["ok"]]
    assert refused and refused[0]["error"] == "not_in_bag", refused[:2]
    # the refusal comes when the car lamps known to be in hands or spent reach the bag's 255
    assert 80 <= refused[0]["line"] // 6 <= 86


def test_a_map_field_of_200_kilobytes_is_a_map_error(tmp_path):
    folder = tmp_path / "map"
    shutil.copytree(TESTMAP, folder)
    with open(folder / "cities.csv", "a") as f:
        f.write('31,5,5,"%s"\n' % ("x" * 200000))
    status, out, err = replay_text("\n".join(EUROPE) + "\n", "--map", str(folder))
    assert status == 2 and out == "" and "cities.csv line 32" in err and "Traceback" not in err


def test_a_record_cut_at_a_line_boundary_is_a_game_in_progress():
    for lines in (LONDON, LONDON_BOARD, EUROPE, EUROPE_PUBLIC):
        ok = [i for i, v in enumerate(list(europe_record.replay(lines) if "europe" in lines[0]
                                             else london_record.replay(lines))[:-1]) if v["ok"]]
        cut = ok[len(ok) // 2] + 1  # the first half, up to an accepted line
        status, out, err = replay_text("\n".join(lines[:cut]) + "\n")
        assert json.loads(out.splitlines()[-1])["result"] is None
        assert "game in progress" in err
        assert status == (1 if any(not json.loads(v).get("ok", True) for v in out.splitlines()[:-1]) else 4)
        status, out, err = replay_text("\n".join(lines) + "\n")
        assert status in (0, 1) and "game in progress" not in err


# --- hypothesis ---------------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10 ** 45), max_value=10 ** 45)
    | st.floats(allow_nan=False) | st.text(max_size=20) | st.sampled_from(["D1", "P1", "X", "car/lamp", "taxi", "europe"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20)


@st.composite
def mutated_record(draw):
    lines = list(draw(st.sampled_from([LONDON, LONDON_BOARD, EUROPE, EUROPE_PUBLIC])))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.integers(0, 5))
        if how == 0:  # a key of the line gets any JSON value
            try:
                obj = json.loads(lines[i])
            except ValueError:  # an earlier mutation broke it
                obj = None
            if isinstance(obj, dict) and obj:
                key = draw(st.sampled_from(sorted(obj)))
                obj[key] = draw(json_values)
                lines[i] = json.dumps(obj)
        elif how == 1:  # a line cut anywhere
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        elif how == 2:  # any text
            lines[i] = draw(st.text(max_size=60))
        elif how == 3:  # lines swapped or dropped
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == 4:
            del lines[i:i + draw(st.integers(1, 5))]
            if not lines:
                lines = [""]
        else:  # a line nested deep
            depth = draw(st.integers(1, 3000))
            lines[i] = "[" * depth + lines[i] + "]" * depth
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_record())
def test_replay_survives_any_record(text):
    status, out, err = replay_text(text)
    assert status in EXIT_STATUSES
    assert "Traceback" not in err
    if status != 2:
        assert "result" in json.loads(out.splitlines()[-1])


@st.composite
def mutated_map(draw):
    files = {}
    for name in ("cities.csv", "connections.csv", "missions.csv", "start_cards.csv", "PROVENANCE.md"):
        with open(os.path.join(TESTMAP, name), encoding="utf-8") as f:
            files[name] = f.read()
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(files)))
        text = files[name] or ""
        how = draw(st.integers(0, 4))
        if how == 0:  # a cell replaced by any text
            rows = text.split("\n")
            r = draw(st.integers(0, len(rows) - 1))
            cells = rows[r].split(",")
            cells[draw(st.integers(0, len(cells) - 1))] = draw(st.text(max_size=12))
            rows[r] = ",".join(cells)
            text = "\n".join(rows)
        elif how == 1:
            text = text[:draw(st.integers(0, len(text)))]
        elif how == 2:
            text += draw(st.sampled_from(['1,2,"' + "x" * 200000 + '"\n', "\x00\n", '"unclosed\n', "9" * 5000 + ",1,car\n"]))
        elif how == 3:
            text = None  # the file is missing
        else:
            text = draw(st.text(max_size=200))
        files[name] = text
    return files


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_map())
def test_replay_survives_any_map_folder(files):
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            if text is not None:
                with open(os.path.join(tmp, name), "w", encoding="utf-8", errors="surrogatepass") as f:
                    f.write(text)
        record = os.path.join(tmp, "record.jsonl")
        with open(record, "w") as f:
            f.write("\n".join(EUROPE[:30]) + "\n")
        status, out, err = yard_replay(record, "--map", tmp)
    assert status in EXIT_STATUSES
    assert "Traceback" not in err
    if status == 2:
        assert err.startswith("yard replay: the map ") and out == ""
