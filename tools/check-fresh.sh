#!/usr/bin/env bash
# The README's two commands on a bare Debian 12, as a new user meets them.
#
# Builds a debootstrap `minbase` chroot with only python3, python3-venv, git and make (the README's
# prerequisites), clones this repository's HEAD into it (commit first: uncommitted changes are not in the
# clone), and runs there, as root:
#   1. `make run` with no display: it must set everything up, then refuse with one line and exit 1;
#   2. `make run` under xvfb-run: the window must still be up when the time limit ends;
#   3. `make test`: the whole suite must pass, with no test skipped for want of a system package.
# The machine's network settings for apt and pip (resolv.conf, CA bundle, pip configuration and PIP_*
# variables) are copied in; no package is. Needs root and debootstrap (installed if missing).
#
# The mounts under the chroot and its removal go through tools/chroot-mounts.sh: nothing is mounted twice,
# everything mounted below the chroot comes off before it is removed, and the removal refuses while
# anything stays mounted there (an `rm -rf` through a bind mount of /dev once deleted the host's devices).
#
# usage: tools/check-fresh.sh            (work folder: $CHECK_FRESH_DIR, default /var/tmp/md-check-fresh)
set -euo pipefail
# shellcheck source=tools/chroot-mounts.sh
. "$(dirname "$0")/chroot-mounts.sh"

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${CHECK_FRESH_DIR:-/var/tmp/md-check-fresh}
suite=${CHECK_FRESH_SUITE:-bookworm}
mirror=${CHECK_FRESH_MIRROR:-http://deb.debian.org/debian}
window_seconds=${CHECK_FRESH_WINDOW_SECONDS:-90}

[ "$(id -u)" = 0 ] || { echo "check-fresh: run as root (debootstrap and chroot need it)" >&2; exit 2; }
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }

mkdir -p "$work"
base="$work/base-$suite"
if [ ! -x "$base/usr/bin/python3" ]; then
    echo "== debootstrap $suite (minbase + python3 python3-venv git make) into $base"
    remove_tree "$base"
    debootstrap --variant=minbase --include=python3,python3-venv,git,make,ca-certificates \
        "$suite" "$base" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log"; exit 1; }
fi

root="$work/root"
trap 'unmount_all "$root"' EXIT
remove_tree "$root"   # what an earlier run left, its mounts first (refuses while any stays)
echo "== fresh copy of the bare system"
cp -a "$base" "$root"
for spec in proc:proc sysfs:sys bind:/dev:dev bind:/dev/pts:dev/pts tmpfs:dev/shm; do
    mount_once "$root" "$spec"
done

# network settings only: name resolution, the CA bundle this site's traffic is signed with, pip's configuration
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/"
[ -d /etc/xdg/pip ] && mkdir -p "$root/etc/xdg" && cp -r /etc/xdg/pip "$root/etc/xdg/"
[ -f /etc/apt/sources.list.d/debian.sources ] && cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" \
    && rm -f "$root/etc/apt/sources.list"
envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 CI=true)
while IFS='=' read -r name value; do envs+=("$name=$value"); done < <(env | grep -E '^PIP_' || true)

echo "== clone $(git -C "$repo" rev-parse --short HEAD) into the chroot"
git clone -q --no-local "$repo" "$root/repo"

in_chroot() { chroot "$root" /usr/bin/env -i "${envs[@]}" bash -c "cd /repo && $1"; }
status=0

echo "== 1. make run, no display (sets up, then must say why it cannot open, exit 1)"
set +e
in_chroot "make run" >"$work/run-nodisplay.log" 2>&1
rc=$?
set -e
tail -3 "$work/run-nodisplay.log"
if [ "$rc" -ne 0 ] && grep -q "xvfb-run" "$work/run-nodisplay.log"; then
    echo "   ok: exit $rc with the message above"
else
    echo "   FAILED: exit $rc (log: $work/run-nodisplay.log)"; status=1
fi

echo "== 2. make run under xvfb-run, for ${window_seconds} s"
set +e
in_chroot "timeout --kill-after=10 $window_seconds xvfb-run -a -s '-screen 0 1600x1000x24' make run" \
    >"$work/run-xvfb.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 124 ]; then
    echo "   ok: the window was still up after ${window_seconds} s"
else
    tail -5 "$work/run-xvfb.log"; echo "   FAILED: make run ended by itself with exit $rc (log: $work/run-xvfb.log)"; status=1
fi

echo "== 3. make test"
set +e
in_chroot "make test -o run-deps" >"$work/test.log" 2>&1
rc=$?
set -e
tail -3 "$work/test.log"
if [ "$rc" -ne 0 ]; then
    echo "   FAILED: exit $rc (log: $work/test.log)"; status=1
fi
grep -E "^SKIPPED" "$work/test.log" | sed 's/^/   /' || true
if grep -E "^SKIPPED" "$work/test.log" | grep -qiE "not installed|no module|shared object|could not import"; then
    echo "   FAILED: tests skipped for want of a package (above)"; status=1
fi

[ "$status" -eq 0 ] && echo "check-fresh: passed" || echo "check-fresh: FAILED"
exit "$status"
