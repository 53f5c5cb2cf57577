#!/bin/sh
# Fault fixture (a hostile bot that crashes on purpose): at its first turn, sends SIGKILL to every
# process it may signal (kill -1: every process of its own uid), itself included, so it loses by
# crash and is started again for the next game. Why: a bot that gets the uid of the running
# opponent at some restart kills it; two live bots must never share a uid.
while read -r word rest; do
    case "$word" in
        arena)
            echo "ready kill_own_uid" ;;
        turn)
            kill -9 -1 ;;
        quit)
            exit 0 ;;
    esac
done
