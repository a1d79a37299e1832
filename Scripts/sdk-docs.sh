#!/usr/bin/env bash
# Generates the API references of the two libraries others import — TidingsSDK
# (extensions) and TidingsApp (apps) — from their /// comments and DocC
# catalogs with the toolchain's own tools (swift-symbolgraph via the compiler,
# then docc), failing on any warning, such as an undocumented parameter, and
# on any public declaration without a /// summary: docc says nothing about
# those (its --warnings-as-errors covers links and parameters), so
# Scripts/check-doc-coverage.py reads the symbol graphs first.
#   Scripts/sdk-docs.sh [OUTPUT]   (default .build-docs: OUTPUT/TidingsSDK.doccarchive, OUTPUT/TidingsApp.doccarchive)
# Open an archive's index.html through a web server (python3 -m http.server -d ARCHIVE).
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build-docs}
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/TidingsRuntime/Host/HostFunctions.swift)
for module in TidingsSDK TidingsApp; do
    graphs=.build-docs/symbol-graphs/$module
    rm -rf "$graphs" && mkdir -p "$graphs"
    swift build --scratch-path .build-docs --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
    # Only the library's own symbols: the modules below it are not its API.
    find "$graphs" -name '*.symbols.json' ! -name "$module*" -delete
    python3 Scripts/check-doc-coverage.py "$graphs" \
        || { echo "sdk-docs.sh: $module has public declarations without documentation (above)" >&2; exit 1; }
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.tidings.$module" \
        --fallback-bundle-version "$version" \
        --transform-for-static-hosting --warnings-as-errors \
        --output-path "$output/$module.doccarchive"
    echo "$module reference: $output/$module.doccarchive/documentation/$lower/index.html"
done
