#!/bin/sh
# Fault fixture (a hostile probe of the host's kernel settings): at start-up, opens
# /proc/sys/kernel/core_pattern for appending (opening writes nothing; a pipe written there would run
# a program as host root at the next core dump) and writes an invalid value to
# /proc/sys/kernel/printk_ratelimit (refused by its handler with EINVAL if the write reaches it, so
# the host is never changed); then tries to write a file to the sandbox's own / and /dev (tmpfs
# without a size bound). Says on stderr what happened; then plays X in the first empty cell.
# Why sh: it must run as an unprivileged user, who may not reach the harness's own Python.
while read -r word rest; do
    case "$word" in
        arena)
            if (exec 3>>/proc/sys/kernel/core_pattern) 2>/dev/null; then core=open; else core=denied; fi
            printk=$( (printf x >/proc/sys/kernel/printk_ratelimit) 2>&1 )
            case "$printk" in
                *"Read-only"*|*"ermission denied"*) printk=denied ;;
                *) printk=reached ;;
            esac
            unbounded=denied
            for folder in / /dev; do
                if (echo x >"${folder%/}/arena-probe") 2>/dev/null; then unbounded="$folder"; fi
            done
            echo "sysctl_probe: core_pattern=$core printk_ratelimit=$printk unbounded=$unbounded" >&2
            echo "ready sysctl_probe" ;;
        turn)
            board=${rest%% *}
            before=${board%%.*}
            cell=${#before}
            set -- a b c d e f
            shift $((cell % 6))
            echo "$1$((cell / 6 + 1))X" ;;
        quit)
            exit 0 ;;
    esac
done
