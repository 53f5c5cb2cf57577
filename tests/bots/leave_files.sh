#!/bin/sh
# Fault fixture (a hostile bot that keeps state): at start-up, writes a file and a folder holding a
# file to each of the host's shared temporary folders (/tmp, /var/tmp, /dev/shm), named after its
# ARENA_BOT_TOKEN, and makes a System V shared memory segment (ipcmk); says on stderr which of them
# it could write and the segment's id. Without bubblewrap these survive the bot unless the harness
# removes them; then plays X in the first empty cell.
while read -r word rest; do
    case "$word" in
        arena)
            wrote=""
            for folder in /tmp /var/tmp /dev/shm; do
                name="$folder/leftover-$ARENA_BOT_TOKEN"
                if echo state >"$name" 2>/dev/null && mkdir "$name.d" 2>/dev/null \
                    && echo state >"$name.d/inner" 2>/dev/null; then
                    wrote="$wrote $folder"
                fi
            done
            shm=$(ipcmk -M 65536 2>/dev/null | sed -n 's/^Shared memory id: //p')
            echo "leave_files: token=$ARENA_BOT_TOKEN shm=${shm:-none} wrote=${wrote# }" >&2
            echo "ready leave_files" ;;
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
