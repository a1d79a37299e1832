#!/usr/bin/env python3
"""Fails on any public declaration without a /// summary in symbol graphs.

DocC documents what it is given and stays silent about what has no
comment (--warnings-as-errors covers broken links and parameters, not
missing documentation), so Scripts/sdk-docs.sh runs this over the symbol
graphs it makes, before docc:

    Scripts/check-doc-coverage.py GRAPH_DIR...

Every symbol of every *.symbols.json under each GRAPH_DIR needs a
non-empty docComment, except those the compiler synthesizes (hashValue,
hash(into:) of a RawRepresentable: "::SYNTHESIZED::" in their identifier)
and those with no location of their own (a protocol's default
implementation declared in another module, such as OptionSet.insert(_:)),
which are documented where they are declared. Prints one line per missing
comment, FILE:LINE: NAME (KIND), and exits 1 if there is any.
"""
import json
import pathlib
import sys


def undocumented(graph):
    """(file, line, name, kind) of each public symbol of `graph` without documentation."""
    for symbol in graph.get("symbols", []):
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or "location" not in symbol:
            continue
        lines = symbol.get("docComment", {}).get("lines", [])
        if any(line.get("text", "").strip() for line in lines):
            continue
        location = symbol["location"]
        file = location["uri"].removeprefix("file://")
        line = location.get("position", {}).get("line", 0) + 1
        yield file, line, ".".join(symbol["pathComponents"]), symbol["kind"]["identifier"]


def main(directories):
    if not directories:
        print("usage: check-doc-coverage.py GRAPH_DIR...", file=sys.stderr)
        return 64
    missing = []
    for directory in directories:
        for path in sorted(pathlib.Path(directory).rglob("*.symbols.json")):
            missing += undocumented(json.loads(path.read_text()))
    for file, line, name, kind in sorted(set(missing)):
        print(f"{file}:{line}: {name} ({kind}) is public and has no /// documentation")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
