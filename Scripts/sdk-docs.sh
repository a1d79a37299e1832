#!/usr/bin/env bash
# Generates the TidingsSDK API reference from its /// comments and its DocC
# catalog with the toolchain's own tools (swift-symbolgraph via the compiler,
# then docc), failing on any warning, such as an undocumented parameter.
#   Scripts/sdk-docs.sh [OUTPUT]   (default .build-docs/TidingsSDK.doccarchive)
# Open OUTPUT/index.html through a web server (python3 -m http.server -d OUTPUT).
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build-docs/TidingsSDK.doccarchive}
graphs=.build-docs/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --scratch-path .build-docs --target TidingsSDK \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
# Only the SDK's own symbols: the modules below it are not its API.
find "$graphs" -name '*.symbols.json' ! -name 'TidingsSDK*' -delete
docc convert Sources/TidingsSDK/TidingsSDK.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name TidingsSDK --fallback-bundle-identifier org.tidings.TidingsSDK \
    --fallback-bundle-version "$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/TidingsRuntime/Host/HostFunctions.swift)" \
    --transform-for-static-hosting --warnings-as-errors \
    --output-path "$output"
echo "TidingsSDK reference: $output/documentation/tidingssdk/index.html"
