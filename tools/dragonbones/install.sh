#!/bin/sh
# Dev-only: installs the DragonBonesJS runtime that the reference data and the JS bench come from,
# into build/dbref (gitignored; nothing of it is committed), and compiles its core to
# build/dbref/dragonBones.js.
#
#   npm package   dragonbones-runtime@5.6.200 (MIT); its DragonBones/src is the 5.6.2 core
#   compiler      typescript@2.9.2 (the TypeScript of that era; newer ones reject the sources)
#
# Both versions are pinned. Runs again in a second when everything is there already.
# Usage: sh tools/dragonbones/install.sh [dest]   (dest defaults to build/dbref)
set -eu
DEST=${1:-build/dbref}
RUNTIME=dragonbones-runtime@5.6.200
TYPESCRIPT=typescript@2.9.2
OUT=$DEST/dragonBones.js

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "tools/dragonbones/install.sh: '$1' not found; the DragonBones reference tools need node 20 and npm:" >&2
        echo "    apt-get install nodejs npm" >&2
        exit 1
    fi
}
need node
need npm
need tar
major=$(node -e 'process.stdout.write(process.versions.node.split(".")[0])')
if [ "$major" -lt 16 ]; then
    echo "tools/dragonbones/install.sh: node $(node --version) is too old; node 20 is what the reference data was made with" >&2
    exit 1
fi
[ "$major" = 20 ] || echo "dbref: note: node $(node --version); the committed reference data was made with node 20"

mkdir -p "$DEST"
if [ -f "$OUT" ] && [ -f "$DEST/package/DragonBones/src/dragonBones/core/DragonBones.ts" ] \
    && [ -x "$DEST/tsc/node_modules/.bin/tsc" ]; then
    echo "dbref: $OUT is there already (rm -rf $DEST to reinstall)"
    exit 0
fi

if [ ! -f "$DEST/package/package.json" ]; then
    echo "dbref: npm pack $RUNTIME -> $DEST (about 13 MB, checked against the registry's integrity hash)"
    tgz=$(cd "$DEST" && npm pack --silent "$RUNTIME" | tail -n 1)
    [ -f "$DEST/$tgz" ] || { echo "tools/dragonbones/install.sh: npm pack $RUNTIME gave no tarball" >&2; exit 1; }
    echo "dbref: unpacking $DEST/$tgz"
    tar -xzf "$DEST/$tgz" -C "$DEST"
    rm -f "$DEST/$tgz"
fi
version=$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$(pwd)/$DEST/package/package.json")
[ "$version" = 5.6.200 ] || { echo "tools/dragonbones/install.sh: $DEST/package is version $version, not 5.6.200 (rm -rf $DEST)" >&2; exit 1; }

if [ ! -x "$DEST/tsc/node_modules/.bin/tsc" ]; then
    echo "dbref: npm install $TYPESCRIPT -> $DEST/tsc"
    mkdir -p "$DEST/tsc"
    npm install --silent --no-audit --no-fund --no-save --prefix "$DEST/tsc" "$TYPESCRIPT"
fi

echo "dbref: compiling $DEST/package/DragonBones/src (tsc $($DEST/tsc/node_modules/.bin/tsc --version)) -> $OUT"
"$DEST/tsc/node_modules/.bin/tsc" -p "$DEST/package/DragonBones" --outFile "$OUT.tmp" --declaration false
mv "$OUT.tmp" "$OUT"
core=$(sed -n 's/.*VERSION: string = "\([0-9.]*\)".*/\1/p' "$DEST/package/DragonBones/src/dragonBones/core/DragonBones.ts" | head -n 1)
echo "dbref: done: DragonBones core $core in $OUT ($(wc -c <"$OUT") bytes)"
