#!/usr/bin/env python3
"""Add up meson's JSON test logs into one closing line."""
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError:
        # A run that left no log ran nothing: that is a failure, not a pass.
        print(f"test-summary: no log {path}", file=sys.stderr)
        failed += 1
        continue
    for line in lines:
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
