"""A game's ending with kabe, notebook style: run it cell by cell, or as a script.

    python examples/game_walkthrough.py TABLES [PDN] [--plot FILE.png]

TABLES is a directory built by `kabe generate` (the default PDN, two games of the 1950
USSR championship, needs Russian tables up to 5 pieces: `kabe generate --variant russian
--pieces 5 --tables TABLES`). The script prints the moves that threw a result away, then
follows one game's verdict and count move by move, and plots them when matplotlib is
installed (`pip install matplotlib`) and --plot names a file.
"""

# %% Open the tables and analyse the file
import argparse
import pathlib

import kabe

here = pathlib.Path(__file__).resolve().parent
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("tables")
parser.add_argument("pdn", nargs="?", default=str(here.parents[1] / "data" / "games" / "russian-rules.pdn"))
parser.add_argument("--plot", help="write the plot of the first analysed game to this PNG file")
args = parser.parse_args()

tb = kabe.open_tablebase(args.tables)
games = list(kabe.analyze(args.pdn, tb))
print(f"{len(games)} games read from {args.pdn}")

# %% The moves that threw a result away
for game in games:
    for p in game.get("positions", []):
        played = p["played"]
        if played and played["error"]:
            e = played["error"]
            print(
                f"game {game['game']} ({game['white']} - {game['black']}): {p['move_number']} {played['move']}? "
                f"turns a {e['from']} into a {e['to']}; {e['best']} kept it"
            )

# %% One game, position by position: exact verdict, theory, and the governing count
game = next(g for g in games if g.get("positions"))
print(f"\ngame {game['game']}: {game['white']} - {game['black']}, {game['result']}")
rows = []
for p in game["positions"]:
    rule = p["rule"]
    count = f"{rule['article']}: {rule['plies_left']} plies left" if rule else ""
    theory = p["theoretical"]
    print(
        f"{p['move_number']:>7} {p['exact']['result']:>5} (theory {theory['result']}"
        f"{' in ' + str(theory['plies']) if theory['plies'] is not None else ''}) {count}"
        f"{'  <- the count decides' if p['rule_decides'] else ''}"
    )
    rows.append((p["ply"], p, rule))

# %% The same with the probe API: the position after the last analysed move, and its best moves
last = game["positions"][-1]
counters = kabe.Counters(last["fen"], {k: v for k, v in last["counters"].items()}, rules=game["rules"])
verdict = tb.probe(counters.position, counters)
print(f"\nlast position {last['fen']}: {verdict}")
for m in tb.best_moves(counters.position, counters)[:5]:
    print(f"  {m.text:8} {m.exact}")

# %% Plot: White's result (+1 win, 0 draw, -1 loss) and the plies left on the count
if args.plot:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install matplotlib")

    def for_white(p, result):
        value = {"win": 1, "draw": 0, "loss": -1}[result]
        return value if p["to_move"] == "white" else -value

    plies = [ply for ply, _, _ in rows]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 5))
    top.step(plies, [for_white(p, p["exact"]["result"]) for _, p, _ in rows], where="post", label="exact (rules)")
    top.step(plies, [for_white(p, p["theoretical"]["result"]) for _, p, _ in rows], where="post", linestyle="--", label="theory")
    top.set_yticks([-1, 0, 1], ["Black wins", "draw", "White wins"])
    top.legend()
    bottom.plot(plies, [r["plies_left"] if r else None for _, _, r in rows], marker=".")
    bottom.set_ylabel("plies left on the count")
    bottom.set_xlabel("ply")
    fig.suptitle(f"{game['white']} - {game['black']}")
    fig.savefig(args.plot, dpi=100)
    print(f"plot written to {args.plot}")
