#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""delivered + lost == produced, per ring: the records of each ring in one
or more files (`ringside report --json` of each) against what its producer
says it wrote and dropped (the guest's claims, guest_produced and
guest_lost, as `ringside stat` prints them).

  balance_check.py [--rings N] [--lost-at-most] STAT REPORT.json...

A ring's records in the files are its producer's published count and the
records a snapshot found past its data_head (the host facts'
sealed_records: committed, not counted yet). Their LOST records count what
it dropped; --lost-at-most accepts fewer (drops not yet reported in a
record). --rings N: exactly N rings in stat, each in every file, each
with records. Prints a summary line, then the rings that do not balance;
exits 0 when every ring balances and stat listed at least one.
"""
import argparse
import json
import sys


def claims(path):
    """ring -> (guest_produced, guest_lost) from stat's per-ring table."""
    col, prod = {}, {}
    for line in open(path):
        f = line.split()
        if len(f) > 2 and f[0] == "ring" and f[1] == "mode":
            col = {n: i for i, n in enumerate(f)}
        elif col and f and f[0].isdigit() and "guest_produced" in col:
            prod[int(f[0])] = (int(f[col["guest_produced"]]),
                               int(f[col["guest_lost"]]))
    return prod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rings", type=int)
    ap.add_argument("--lost-at-most", action="store_true")
    ap.add_argument("stat")
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    prod = claims(a.stat)
    reps = [json.load(open(p)) for p in a.reports]
    bad, past = [], 0
    rings = range(a.rings) if a.rings is not None else sorted(prod)
    for r in rings:
        have = [rep["rings"][r] for rep in reps if r < len(rep["rings"])]
        if r not in prod or (a.rings is not None and len(have) < len(reps)):
            bad.append(f"ring {r}: missing (in stat: {r in prod}, in "
                       f"{len(have)} of {len(reps)} files)")
            continue
        produced, lost = prod[r]
        recs = sum(h["records"] for h in have)
        got_lost = sum(h["lost"] for h in have)
        sealed = sum((h.get("host") or {}).get("sealed_records", 0)
                     for h in have)
        past += sealed
        lost_ok = got_lost <= lost if a.lost_at_most else got_lost == lost
        if recs - sealed != produced or not lost_ok or \
           (a.rings is not None and produced == 0):
            bad.append(f"ring {r}: {recs} records in the files ({sealed} past "
                       f"data_head, LOST counts {got_lost}), the guest "
                       f"produced {produced} and lost {lost}")
    if a.rings is not None and len(prod) != a.rings:
        bad.append(f"stat lists {len(prod)} rings, not {a.rings}")
    print(f"{len(prod)} rings in stat, {len(reps)} files; "
          f"{sum(p for p, _ in prod.values())} records produced, "
          f"{sum(l for _, l in prod.values())} lost, {past} more past "
          f"data_head, {len(bad)} rings off")
    for b in bad[:10]:
        print("  " + b)
    return 0 if prod and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
