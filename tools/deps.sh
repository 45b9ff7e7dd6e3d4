#!/bin/sh
# Installs the Debian packages named on the command line that are missing: apt-get as root,
# else through sudo, else prints the exact line to run and fails. Quiet when nothing is missing.
#   tools/deps.sh lua5.4 liblua5.4-dev lua-busted
set -u
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian: the build says what is missing

missing=""
for p in "$@"; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" in
        *"ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    run=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run="sudo"
else
    echo "sinew: cannot install them without root; run:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "sinew: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $run apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
    $run apt-get update -q >/dev/null 2>&1
    # shellcheck disable=SC2086
    $run apt-get install -y -q --no-install-recommends $missing >/dev/null || {
        echo "sinew: apt-get could not install:$missing" >&2
        exit 1
    }
fi
