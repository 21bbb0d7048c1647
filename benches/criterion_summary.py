"""Prints the median of every criterion benchmark under target/criterion as a table."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
for est in sorted(root.glob("*/*/new/estimates.json")):
    median_ns = json.loads(est.read_text())["median"]["point_estimate"]
    name = f"{est.parts[-4]}/{est.parts[-3]}"
    value = f"{median_ns:.1f} ns" if median_ns < 1e3 else f"{median_ns / 1e3:.2f} us" if median_ns < 1e6 else f"{median_ns / 1e6:.2f} ms"
    print(f"{name:<45} {value:>12}")
