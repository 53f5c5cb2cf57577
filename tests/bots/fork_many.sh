#!/bin/sh
# Fault fixture: at start-up, starts 40 background sleeps (30 s each), then plays X in the first
# empty cell. Bounded to fewer processes, the shell cannot fork and dies ("Cannot fork").
# Why sh: it must run as an unprivileged user, who may not reach the harness's own Python.
i=0
while [ $i -lt 40 ]; do
    sleep 30 &
    i=$((i + 1))
done
echo "fork_many: started $i" >&2
while read -r word rest; do
    case "$word" in
        arena)
            echo "ready fork_many" ;;
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
