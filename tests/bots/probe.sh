#!/bin/sh
# Fault fixture (a hostile probe): at start-up, says on stderr what it could reach: its uid, root's
# /etc/shadow, a terminal (/dev/tty), the harness's stderr through /proc (its parent's fd 2), and
# whether the /etc entries that runtimes read (node's /etc/ssl, java's /etc/alternatives) are open.
# Then plays X in the first empty cell.
# Why sh: it must run as an unprivileged user, who may not reach the harness's own Python.
while read -r word rest; do
    case "$word" in
        arena)
            if cat /etc/shadow >/dev/null 2>&1; then shadow=read; else shadow=denied; fi
            if (: >/dev/tty) 2>/dev/null; then tty=open; else tty=denied; fi
            if (: >>"/proc/$PPID/fd/2") 2>/dev/null; then parent=open; else parent=denied; fi
            if ls /etc/ssl /etc/alternatives >/dev/null 2>&1; then etc=open; else etc=denied; fi
            echo "probe: uid=$(id -u) shadow=$shadow tty=$tty parent_stderr=$parent etc=$etc" >&2
            echo "ready probe" ;;
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
