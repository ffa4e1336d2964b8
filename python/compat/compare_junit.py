"""Compare two pytest JUnit reports of the same tests: the baseline (the
package named by the fourth argument, python-lz4 by default) and lzkit's.
Prints the counts; exits 1 if a test passing in the baseline does not
pass for lzkit and is not listed (with its reason) in the known-failures
file, or if a listed test now passes (the list is then out of date)."""

import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    """test id -> 'passed', 'failed' or 'skipped'."""
    result = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("classname", "") + "::" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            result[name] = "failed"
        elif case.find("skipped") is not None:
            result[name] = "skipped"
        else:
            result[name] = "passed"
    return result


def known(path):
    """Listed test ids (a line: `id  reason`; `#` starts a comment)."""
    ids = {}
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            test, _, reason = line.partition(" ")
            ids[test] = reason.strip()
    return ids


def main(baseline_path, lzkit_path, known_path, baseline="python-lz4"):
    base, ours, listed = outcomes(baseline_path), outcomes(lzkit_path), known(known_path)
    passing = [t for t, o in base.items() if o == "passed"]
    missed = [t for t in passing if ours.get(t) != "passed"]
    unlisted = [t for t in missed if t not in listed]
    stale = [t for t in listed if ours.get(t) == "passed"]
    print(f"{baseline} passes {len(passing)} of {len(base)}; lzkit passes "
          f"{len(passing) - len(missed)} of those ({len(missed)} listed or not, "
          f"{len(listed)} listed as known)")
    for t in unlisted:
        print(f"  FAILS for lzkit, passes for {baseline}, not listed: {t}")
    for t in stale:
        print(f"  listed as failing but passes now (remove it): {t}")
    return 1 if unlisted or stale else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
