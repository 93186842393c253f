#!/bin/sh
# wait-idle.sh PID: returns once every thread of PID was asleep (state S) at
# three looks in a row, 10 ms apart, or after 5 s or when PID is gone (exit 1). A program that
# printed its first answer may still be finishing what follows it (storing
# state, its threads settling): an RSS read after this is the waiting
# program's, not a half-started one's. measure.sh, pages.py and
# Benchmarks/Peers/startup.sh read RSS after it.
pid=${1:?usage: wait-idle.sh PID}
quiet=0
for _ in $(seq 500); do
    [ -d /proc/"$pid" ] || exit 1
    # The state follows the command name's closing parenthesis.
    if sed 's/.*) //' /proc/"$pid"/task/*/stat 2>/dev/null | cut -d' ' -f1 | grep -qv '^S$'; then
        quiet=0
    else
        quiet=$((quiet + 1))
        [ "$quiet" -ge 3 ] && exit 0
    fi
    sleep 0.01
done
exit 1
