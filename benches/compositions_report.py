#!/usr/bin/env python3
"""The report of benches/compositions.sh, from the `kabe study --json` output of each file.

    compositions_report.py OUT_DIR MACHINE TABLES FILE.pdn ... [--doc DOC.md]

OUT_DIR holds NAME.json (the study's JSON) and NAME.rss (peak KiB, from /usr/bin/time)
for each file. Prints Markdown: the figures (per file and over all), the cooks, the tries
and the unresolved keys with the materials beyond the tables their searches met most.
With --doc, writes each of these into DOC.md between its markers instead, leaving the rest
of the page as it is:

    <!-- compositions.sh: figures -->  ...  <!-- compositions.sh: end -->

(sections `figures`, `cooks`, `tries`, `needs`); a page without a section's markers is an
error naming the section.
"""
import json
import os
import re
import statistics
import sys
import tempfile


def verdict(c):
    return c.get("verdict", "unreadable").split(" ")[0]


def problem(c):
    return c.get("round") or f"game {c['game']}"


def sections(out, machine, tables, files):
    figures, cooks, tries, needs = [], [], [], []
    totals = {"sound": 0, "cooked": 0, "refuted": 0, "unresolved": 0, "unreadable": 0}
    times, peak, with_tries, count_all = [], 0, 0, 0
    figures.append(f"Machine: {machine}; tables: {tables}.")
    figures.append("")
    figures.append(
        "| file | compositions | sound | cooked | refuted | unresolved | unreadable | with duals "
        "| with tries | solutions not holding | median s | longest s | peak MiB |"
    )
    figures.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for f in files:
        name = os.path.basename(f)[:-4]
        d = json.load(open(os.path.join(out, name + ".json")))
        rss = int(open(os.path.join(out, name + ".rss")).read().split()[-1]) // 1024
        peak = max(peak, rss)
        comps = d["compositions"]
        count_all += len(comps)
        count = {v: sum(1 for c in comps if verdict(c) == v) for v in totals}
        for v in totals:
            totals[v] += count[v]
        t = [c["elapsed_s"] for c in comps if "elapsed_s" in c]
        times += t
        duals = sum(
            1
            for c in comps
            for m in c.get("moves", [])
            if m.get("outcome") == "win" and m["move"] in c.get("keys", []) and any(x["duals"] for x in m.get("duals", []))
        )
        faulty = sum(1 for c in comps if "solution" in c and not c["solution"]["holds"])
        file_tries = sum(1 for c in comps if c.get("tries"))
        with_tries += file_tries
        figures.append(
            f"| {name} | {len(comps)} | {count['sound']} | {count['cooked']} | {count['refuted']} "
            f"| {count['unresolved']} | {count['unreadable']} | {duals} | {file_tries} | {faulty} "
            f"| {statistics.median(t):.2f} | {max(t):.2f} | {rss} |"
        )
        for c in comps:
            moves = {m["move"]: m for m in c.get("moves", [])}
            if verdict(c) == "cooked":
                published = c.get("solution", {}).get("published_key")
                lines = [f"**{k}** {' '.join(moves[k].get('main_line', [])[1:])}".rstrip() for k in c.get("cooks", [])]
                composer = f" ({c['event']})" if c.get("event") else ""
                cooks.append(
                    f"- {name} {problem(c)}{composer}, `{c['fen']}`: published {published}; "
                    + ("; ".join(lines[:-1]) + " and " if len(lines) > 1 else "")
                    + lines[-1]
                    + (" win too." if len(lines) > 1 else " wins too.")
                )
            for m in c.get("moves", []):
                if m.get("try"):
                    r = m["defences"]["holding"][0]
                    tries.append(
                        f"| {name} | {problem(c)} | `{c['fen']}` | {m['move']} | {r['line'][0]} "
                        f"| {' '.join(r['line'])} | {r['end']} | {r['disproof_positions']} |"
                    )
            if verdict(c) == "unresolved":
                key = c.get("solution", {}).get("published_key")
                beyond = moves.get(key, {}).get("beyond_tables", [])
                listed = ", ".join(f"{b['material']} ({b['positions']:,})" for b in beyond) or "none"
                needs.append(f"| {name} {problem(c)} | `{c['fen']}` | {key} | {listed} |")
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    figures.append("")
    figures.append(
        f"{len(times)} compositions searched: **median {statistics.median(times):.2f} s, 95th percentile "
        f"{p95:.2f} s, longest {times[-1]:.2f} s**; {sum(t < 1 for t in times)} within 1 s, "
        f"{sum(t <= 30 for t in times)} within 30 s; peak {peak} MiB. Of {count_all} entries: "
        f"{totals['sound']} sound, {totals['cooked']} cooked, {totals['refuted']} refuted, "
        f"{totals['unresolved']} unresolved, {totals['unreadable']} unreadable; {with_tries} with a try."
    )
    tries = [
        "| file | problem | position | try | refuted only by | line | end | disproof positions |",
        "|---|---|---|---|---|---|---|---|",
    ] + tries
    needs = ["| composition | position | key (published) | open beyond the tables (positions met) |", "|---|---|---|---|"] + needs
    if len(cooks) == 0:
        cooks = ["None."]
    return {"figures": figures, "cooks": cooks, "tries": tries, "needs": needs}


def write_doc(path, parts):
    try:
        text = open(path).read()
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    for name, lines in parts.items():
        pattern = re.compile(
            rf"(<!-- compositions.sh: {name} -->\n).*?(<!-- compositions.sh: end -->)", re.DOTALL
        )
        if not pattern.search(text):
            sys.exit(f"{path}: no section `<!-- compositions.sh: {name} -->` ... `<!-- compositions.sh: end -->`")
        body = "\n".join(lines) + "\n"
        text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text, count=1)
    # A new file beside the page, renamed over it: an interrupted run leaves the page whole.
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(temporary, os.stat(path).st_mode & 0o777)
    os.replace(temporary, path)


def main():
    args = sys.argv[1:]
    doc = None
    if "--doc" in args:
        at = args.index("--doc")
        doc = args[at + 1]
        del args[at : at + 2]
    out, machine, tables, files = args[0], args[1], args[2], args[3:]
    parts = sections(out, machine, tables, files)
    if doc:
        write_doc(doc, parts)
        return
    titles = {"figures": "Figures", "cooks": "Cooks", "tries": "Tries", "needs": "Unresolved: what each still needs"}
    for name, lines in parts.items():
        print(f"## {titles[name]}\n")
        print("\n".join(lines))
        print()


if __name__ == "__main__":
    main()
