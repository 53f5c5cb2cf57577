#!/bin/sh
# Fault fixture (a hostile bot that crashes on purpose): at its first turn, sends SIGKILL to every
# process it may signal (kill -1: every process of its own uid), then, half a second later, to
# itself (on Linux kill -1 spares the caller), so it loses by crash and is started again for the
# next game. Why: a bot that gets the uid of the running opponent at some restart kills it; two
# live bots must never share a uid. The half second is the referee's time to see such an
# opponent die first (without it the bot waited out its move time, 2 s a game).
while read -r word rest; do
    case "$word" in
        arena)
            echo "ready kill_own_uid" ;;
        turn)
            kill -9 -1
            sleep 0.5
            kill -9 $$ ;;
        quit)
            exit 0 ;;
    esac
done
