#!/bin/sh
# shell_bot.sh - an "arena 1" bot in plain POSIX sh.
#
# Why: it proves the protocol is language-agnostic, and that a bot needs nothing but line-based
# stdin/stdout. Per move it uses shell builtins only (read, case, parameter expansion, arithmetic,
# printf): no process is spawned per move, so it answers in well under a millisecond.
#
# Strategy (slightly better than nothing): play the first empty cell, scanning a1..f1, a2..f2, ...
# As Order, copy the mark of the cell to its left (extending the row), else write X.
# As Chaos, write the opposite of the mark to its left (breaking the row), else the opposite
# of the opponent's last mark.

set -f                  # the board has no glob characters, but never expand words as patterns
cr=$(printf '\r')       # the one fork, at start-up: lets us accept CRLF input too
role=order

while IFS= read -r line || [ -n "$line" ]; do
    line=${line%"$cr"}
    # shellcheck disable=SC2086  # word splitting is the point
    set -- $line
    case ${1-} in
        arena)
            printf 'ready shell\n'
            ;;
        game)
            role=${2-order}
            ;;
        turn)
            board=$2
            last=$3
            before=${board%%.*}             # everything before the first empty cell
            i=${#before}                    # ... so its length is that cell's index
            left=
            if [ $((i % 6)) -ne 0 ]; then
                left=${before#"${before%?}"}   # the cell to the left: last char of $before
            fi
            lastmark=${last#??}                 # the mark of the opponent's move, or empty
            if [ "$role" = order ]; then
                case $left in
                    O) mark=O ;;
                    *) mark=X ;;
                esac
            else
                case $left$lastmark in
                    X*) mark=O ;;
                    O*) mark=X ;;
                    [Xx]) mark=O ;;
                    *) mark=X ;;
                esac
            fi
            case $((i % 6)) in
                0) col=a ;; 1) col=b ;; 2) col=c ;; 3) col=d ;; 4) col=e ;; *) col=f ;;
            esac
            printf '%s%d%s\n' "$col" $((i / 6 + 1)) "$mark"
            ;;
        quit)
            exit 0
            ;;
        *)
            # game/end lines and anything unknown need no answer
            ;;
    esac
    line=
done
exit 0
