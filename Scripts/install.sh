#!/usr/bin/env bash
# Installs tidings under a prefix: the binary, the C header and its
# pkg-config file, the Swift SDK package and the app library's package (for
# tidings new), the manual pages,
# the bash/zsh/fish completions, the systemd user units for tidings serve
# and tidings desktop, and the notification portal's backend files.
set -euo pipefail

usage() {
    cat <<'TEXT'
Usage: Scripts/install.sh [--prefix PREFIX] [--destdir DIR] [--binary PATH]

Installs tidings under PREFIX (default /usr/local):
  PREFIX/bin/tidings
  PREFIX/include/tidings/tidings.h            the C ABI
  PREFIX/lib/pkgconfig/tidings.pc             pkg-config --cflags tidings
  PREFIX/share/tidings/TidingsSDK/            the Swift SDK package a Swift extension depends on
  PREFIX/share/tidings/TidingsApp/            the app library's package (product TidingsApp) an app depends on
  PREFIX/share/man/man1/tidings*.1            man tidings, man tidings-deliver, ...
  PREFIX/share/bash-completion/completions/tidings
  PREFIX/share/zsh/site-functions/_tidings
  PREFIX/share/fish/vendor_completions.d/tidings.fish
  PREFIX/lib/systemd/user/tidings.service     (PREFIX/share/systemd/user for ~/.local)
  PREFIX/lib/systemd/user/tidings-desktop.service   the desktop front end, beside it
  PREFIX/share/xdg-desktop-portal/portals/tidings.portal   the notification portal's backend
  PREFIX/share/xdg-desktop-portal/tidings-portals.conf     portals.conf for XDG_CURRENT_DESKTOP=tidings
  PREFIX/share/dbus-1/services/org.freedesktop.impl.portal.desktop.tidings.service

Options:
  --prefix PREFIX   where to install (default /usr/local; ~/.local for one user)
  --destdir DIR     stage the files under DIR (for packagers); paths inside still name PREFIX
  --binary PATH     install this tidings binary instead of building a release one
  --help            show this help
TEXT
}

prefix=/usr/local
destdir=
binary=
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --binary) binary=${2:?--binary needs a path}; shift 2 ;;
        --help|-h) usage; exit 0 ;;
        *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
case $prefix in
    /*) ;;
    *) echo "install.sh: --prefix must be an absolute path, not $prefix" >&2; exit 64 ;;
esac

cd "$(dirname "$0")/.."
if [ -z "$binary" ]; then
    swift build -c release --product tidings
    binary=$(swift build -c release --show-bin-path)/tidings
fi
[ -x "$binary" ] || { echo "install.sh: $binary is not an executable" >&2; exit 66; }

root=$destdir$prefix
version=$("$binary" --version | sed 's/^tidings //')
if [ "$prefix" = "$HOME/.local" ]; then units=share/systemd/user; else units=lib/systemd/user; fi

install -d "$root/bin" "$root/include/tidings" "$root/lib/pkgconfig" "$root/share/man/man1" "$root/$units"
install -m 0755 "$binary" "$root/bin/tidings"
install -m 0644 Sources/TidingsABI/include/tidings.h "$root/include/tidings/tidings.h"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" Packaging/tidings.pc.in > "$root/lib/pkgconfig/tidings.pc"
# The Swift packages, each its Package.swift and its modules' sources only, never what a build or an
# editor left beside them: in a git checkout (this directory its top), the files git tracks; else the
# source files (*.swift, *.h, *.c, module.modulemap, include/).
if [ "$(git rev-parse --show-toplevel 2> /dev/null)" = "$(pwd -P)" ]; then checkout=yes; else checkout=no; fi
sources() {
    if [ $checkout = yes ]; then
        git ls-files -z -- "Sources/$1"
    else
        find "Sources/$1" -type f \( -name '*.swift' -o -name '*.h' -o -name '*.c' -o -name module.modulemap \
            -o -path "Sources/$1/include/*" \) -print0
    fi
}
# install_package NAME TEMPLATE MODULE...: PREFIX/share/tidings/NAME, its Package.swift from TEMPLATE.
install_package() {
    local package=$root/share/tidings/$1 template=$2
    shift 2
    rm -rf "$package" && install -d "$package/Sources"
    sed -e "s|@VERSION@|$version|g" "$template" > "$package/Package.swift"
    for module in "$@"; do
        [ -d "Sources/$module" ] || { echo "install.sh: Sources/$module is missing" >&2; exit 66; }
        sources "$module" | while IFS= read -r -d '' file; do
            case $file in
                *.docc/*) continue ;;   # the documentation catalogue is the docs build's, not the package's
            esac
            # A tracked file deleted from the work tree is not there to install.
            [ -f "$file" ] || continue
            install -D -m 0644 "$file" "$package/$file"
        done
    done
}
# What a Swift extension made by tidings new depends on.
install_package TidingsSDK Packaging/sdk-package.swift.in TidingsABI TidingsBase TidingsSDK
# What an app depends on: TidingsApp and the modules it needs (Docs/app-library.md gives the package line).
install_package TidingsApp Packaging/app-package.swift.in TidingsABI TidingsBase TidingsProtocol TidingsApp
sed -e "s|@BINDIR@|$prefix/bin|g" Packaging/tidings.service.in > "$root/$units/tidings.service"
sed -e "s|@BINDIR@|$prefix/bin|g" Packaging/tidings-desktop.service.in > "$root/$units/tidings-desktop.service"
# The notification portal's backend (tidings desktop): its .portal file, a portals.conf, its D-Bus activation.
install -d "$root/share/xdg-desktop-portal/portals" "$root/share/dbus-1/services"
install -m 0644 Packaging/tidings.portal "$root/share/xdg-desktop-portal/portals/tidings.portal"
install -m 0644 Packaging/tidings-portals.conf "$root/share/xdg-desktop-portal/tidings-portals.conf"
sed -e "s|@BINDIR@|$prefix/bin|g" Packaging/org.freedesktop.impl.portal.desktop.tidings.service.in \
    > "$root/share/dbus-1/services/org.freedesktop.impl.portal.desktop.tidings.service"
"$binary" manual --directory "$root/share/man/man1"
for shell in bash zsh fish; do
    case $shell in
        bash) file=share/bash-completion/completions/tidings ;;
        zsh) file=share/zsh/site-functions/_tidings ;;
        fish) file=share/fish/vendor_completions.d/tidings.fish ;;
    esac
    install -d "$(dirname "$root/$file")"
    "$binary" completions $shell > "$root/$file"
done
echo "tidings $version installed under $root"
# pkg-config looks in its own directories (pkg-config --variable pc_path pkg-config); say how to add this one.
pcdir=$prefix/lib/pkgconfig
if command -v pkg-config > /dev/null; then searched=$(pkg-config --variable pc_path pkg-config); else searched=; fi
case ":$searched:${PKG_CONFIG_PATH:-}:" in
    *":$pcdir:"*) ;;
    *) echo "pkg-config does not look in $pcdir: for pkg-config --cflags tidings, run"
       echo "  export PKG_CONFIG_PATH=$pcdir\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}" ;;
esac
