#!/usr/bin/env bash
# make-bundles.sh COUNT DIRECTORY LIBRARY
#
# Makes COUNT Tidings bundles and COUNT LV2 bundles of the same shape, for
# comparing Tidings' discovery with lilv's (`lv2ls`):
#
#   DIRECTORY/tidings/NoOpNNNNN.appex/Info.plist    the NoOp manifest (Manifests/NoOp.plist)
#                                                   with identifier com.example.bench.noopNNNNN
#                                                   and category noopNNNNN
#   DIRECTORY/tidings/NoOpNNNNN.appex/LIBRARY-NAME  a copy of LIBRARY
#   DIRECTORY/lv2/NoOpNNNNN.lv2/manifest.ttl        plugin urn:tidings:bench:noopNNNNN, its
#                                                   lv2:binary noop.so and rdfs:seeAlso noop.ttl
#   DIRECTORY/lv2/NoOpNNNNN.lv2/noop.ttl            the plugin's name and a port
#
# Each kind has a manifest naming a shared library; the LV2 one names a
# library that is not there, since lv2ls reads manifests only and never opens
# binaries, while `tidings list` checks each library's ELF header.
#
# List them with:
#   tidings list --json --extensions DIRECTORY/tidings
#   LV2_PATH=DIRECTORY/lv2 lv2ls
#
# DIRECTORY is created if need be and must not hold these bundles yet.
# Used by `tidings-benchmark --only discovery`; runnable by hand.
set -euo pipefail

if [ $# -ne 3 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]] || [ ! -f "$3" ]; then
    echo "usage: make-bundles.sh COUNT DIRECTORY LIBRARY (COUNT at least 1, LIBRARY a file such as libNoOp.so)" >&2
    exit 64
fi
count=$1
directory=$2
library=$3
executable=${library##*/}

mkdir -p "$directory/tidings" "$directory/lv2"

names=()
appexes=()
lv2s=()
for ((number = 1; number <= count; number++)); do
    printf -v name 'NoOp%05d' "$number"
    names+=("$name")
    appexes+=("$directory/tidings/$name.appex")
    lv2s+=("$directory/lv2/$name.lv2")
done

# Directories and library copies made by the batch (mkdir, tee), not by a
# process per bundle.
printf '%s\0' "${appexes[@]}" "${lv2s[@]}" | xargs -0 mkdir --
printf '%s\0' "${appexes[@]/%//$executable}" | xargs -0 sh -c 'exec tee -- "$@" <"$0" >/dev/null' "$library"

for name in "${names[@]}"; do
    lower=${name,,}
    printf '%s' "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">
<plist version=\"1.0\">
<dict>
	<key>CFBundleExecutable</key>
	<string>$executable</string>
	<key>CFBundleIdentifier</key>
	<string>com.example.bench.$lower</string>
	<key>NSExtension</key>
	<dict>
		<key>NSExtensionAttributes</key>
		<dict>
			<key>UNNotificationExtensionCategory</key>
			<string>$lower</string>
			<key>UNNotificationExtensionInitialContentSizeRatio</key>
			<real>0.5</real>
		</dict>
		<key>NSExtensionPointIdentifier</key>
		<string>com.apple.usernotifications.content-extension</string>
	</dict>
</dict>
</plist>
" >"$directory/tidings/$name.appex/Info.plist"
    printf '%s' "@prefix lv2:  <http://lv2plug.in/ns/lv2core#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

<urn:tidings:bench:$lower>
	a lv2:Plugin ;
	lv2:binary <noop.so> ;
	rdfs:seeAlso <noop.ttl> .
" >"$directory/lv2/$name.lv2/manifest.ttl"
    printf '%s' "@prefix doap: <http://usefulinc.com/ns/doap#> .
@prefix lv2:  <http://lv2plug.in/ns/lv2core#> .

<urn:tidings:bench:$lower>
	a lv2:Plugin ;
	doap:name \"$name\" ;
	lv2:port [
		a lv2:InputPort , lv2:ControlPort ;
		lv2:index 0 ;
		lv2:symbol \"gain\" ;
		lv2:name \"Gain\"
	] .
" >"$directory/lv2/$name.lv2/noop.ttl"
done
