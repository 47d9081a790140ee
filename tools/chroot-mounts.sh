#!/usr/bin/env bash
# Mounts under a chroot tree, and removing the tree without ever deleting through a mount.
#
# tools/check-fresh.sh sources this file; tests/test_chroot_mounts.py runs it on scratch trees.
# A mount left below a tree (a /dev bound twice by an interrupted run, a mount somebody made) turns
# `rm -rf TREE` into `rm -rf /dev`: on a test machine that removed the host's device nodes. So:
#   - mount_once never mounts on a point that is already a mount point;
#   - unmount_all takes off every mount at or below the tree (stacked ones too), deepest first,
#     reading /proc/self/mounts rather than a fixed list;
#   - remove_tree refuses (one line on stderr, status 1) while anything is still mounted there,
#     and removes with `rm -rf --one-file-system` (which also stops at other file systems).
#
# usage (as a command):
#   tools/chroot-mounts.sh mount TREE SPEC...   SPEC: proc:REL, sysfs:REL, tmpfs:REL or bind:SOURCE:REL
#   tools/chroot-mounts.sh unmount TREE
#   tools/chroot-mounts.sh check TREE           status 1 and a message when something is mounted below
#   tools/chroot-mounts.sh remove TREE          unmount, check, then remove the tree
#   tools/chroot-mounts.sh list TREE            the mount points at or below TREE, one a line

# the canonical path /proc/self/mounts uses for TREE (it need not exist)
_tree() { realpath -m -- "$1"; }

# mount points at or below TREE, deepest first (octal escapes such as \040 decoded)
mounts_below() {
    local tree point
    tree=$(_tree "$1")
    while read -r _ point _; do
        point=$(printf '%b' "$point")
        case "$point" in
            "$tree" | "$tree"/*) printf '%s\n' "$point" ;;
        esac
    done </proc/self/mounts | sort -r
}

# mount_once TREE SPEC: mount SPEC under TREE unless its target is a mount point already
mount_once() {
    local tree=$1 spec=$2 kind rel source=""
    kind=${spec%%:*}
    rel=${spec#*:}
    if [ "$kind" = bind ]; then
        source=${rel%%:*}
        rel=${rel#*:}
    fi
    local target
    target="$(_tree "$tree")/$rel"
    mkdir -p -- "$target"
    if mountpoint -q -- "$target"; then
        echo "chroot-mounts: $target is mounted already: not mounting it again" >&2
        return 0
    fi
    case "$kind" in
        proc) mount -t proc proc "$target" ;;
        sysfs) mount -t sysfs sys "$target" ;;
        tmpfs) mount -t tmpfs tmpfs "$target" ;;
        bind) mount --bind -- "$source" "$target" ;;
        *) echo "chroot-mounts: unknown mount kind '$kind' in '$spec'" >&2; return 2 ;;
    esac
}

# unmount_all TREE: every mount at or below TREE, deepest first, until none is left or none comes off
unmount_all() {
    local tree=$1 before after point
    before=$(mounts_below "$tree" | wc -l)
    while [ "$before" -gt 0 ]; do
        while IFS= read -r point; do
            umount -l -- "$point" 2>/dev/null || true
        done < <(mounts_below "$tree")
        after=$(mounts_below "$tree" | wc -l)
        [ "$after" -lt "$before" ] || break   # nothing came off: leave it to the check
        before=$after
    done
}

# refuse_if_mounted TREE: status 1 and one line naming what is still mounted
refuse_if_mounted() {
    local left
    left=$(mounts_below "$1" | tr '\n' ' ')
    if [ -n "$left" ]; then
        echo "chroot-mounts: refusing to remove $1: still mounted below it: ${left% } (unmount them first)" >&2
        return 1
    fi
}

# remove_tree TREE: unmount everything below, refuse if anything stays, then remove on this file system only
remove_tree() {
    local tree=$1
    [ -e "$tree" ] || return 0
    unmount_all "$tree"
    refuse_if_mounted "$tree" || return 1
    rm -rf --one-file-system -- "$tree"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    [ $# -ge 2 ] || { sed -n '14,19p' "$0" >&2; exit 2; }
    command=$1 tree=$2
    shift 2
    case "$command" in
        mount) for spec in "$@"; do mount_once "$tree" "$spec"; done ;;
        unmount) unmount_all "$tree" ;;
        check) refuse_if_mounted "$tree" ;;
        remove) remove_tree "$tree" ;;
        list) mounts_below "$tree" ;;
        *) echo "chroot-mounts: unknown command '$command'" >&2; exit 2 ;;
    esac
fi
