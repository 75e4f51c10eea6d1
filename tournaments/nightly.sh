#!/bin/sh
# The organizer's nightly loop: collect the submissions, validate them, play what changed,
# publish the report, write the marks (README: "Running a course"). For cron, e.g.
#
#   30 2 * * *  cd /srv/ai-course && /opt/pacman-arena/tournaments/nightly.sh >> nightly.log 2>&1
#
# Settings come from the environment, or from ./nightly.env when it exists (plain
# NAME=value lines, read with `.`); the defaults are the names the README uses. SOURCES and
# COLLECT_OPTIONS are split at spaces (several sources, several options), so the paths in
# them cannot hold a space:
#
#   CONFIG=course.yaml        the tournament config (entrants.submissions: the collected folder)
#   SCHEME=marks.yaml         the marking scheme (docs/marks.md)
#   INTO=submissions          the folder collect writes the team folders into
#   SOURCES="exports/*"       what collect reads: exports, folders, repository lists (each
#                             one a source: the default takes every export and list in
#                             exports/; `exports` alone would be one plain folder whose
#                             entries, an export zip among them, are teams' uploads)
#   COLLECT_OPTIONS=""        e.g. "--mapping teams.csv --deadline 2026-12-01T23:59:00Z"
#   TOURNAMENT=tournament     the command (e.g. /opt/pacman-arena/.venv/bin/tournament)
#   COLLECT=yes               "no" freezes the submissions: the collect step is skipped and
#                             the folder INTO is played as it is. Set it after the deadline,
#                             before changing `seed:` for the marks (docs/marks.md): while
#                             collect runs, a team that can still submit (--late take, a
#                             repository's own deadline, a backdated commit) can re-roll.
#
# Each step prints a line with the time before it starts. The loop stops at the first step
# that cannot go on (the organizer's own input is wrong: exit 2; nothing usable collected;
# a run stopped), and otherwise goes to the end, so that the report and the marks show what
# was played even when some teams are not ready. Exit status: 0 when every step succeeded,
# else the first failing step's status. A second loop started in the same folder while one
# runs stops at once with exit 2, touching nothing (.nightly.lock, with flock(1)).
set -u

if [ -f ./nightly.env ]; then
    . ./nightly.env
fi
CONFIG=${CONFIG:-course.yaml}
SCHEME=${SCHEME:-marks.yaml}
INTO=${INTO:-submissions}
SOURCES=${SOURCES:-exports/*}
COLLECT_OPTIONS=${COLLECT_OPTIONS:-}
TOURNAMENT=${TOURNAMENT:-tournament}
COLLECT=${COLLECT:-yes}

# One loop at a time in this folder: the kernel's lock on .nightly.lock, held until the script
# ends (even when killed), so that a loop cron starts while yesterday's still runs stops at
# once, having touched nothing.
if command -v flock >/dev/null 2>&1; then
    exec 9>>.nightly.lock
    if ! flock -n 9; then
        echo "== another nightly loop runs in $(pwd) (.nightly.lock is held); stopping" >&2
        exit 2
    fi
else
    echo "== flock(1) is not installed: nothing stops a second loop in this folder" >&2
fi

status=0

step() {
    echo "== $(date -u '+%Y-%m-%d %H:%M:%S') UTC: $*"
}

# Remember the first failure, and say it.
failed() {
    echo "== $1 exited $2"
    if [ "$status" -eq 0 ]; then
        status=$2
    fi
}

if [ "$COLLECT" = no ]; then
    step "collect skipped (COLLECT=no): the submissions in $INTO are frozen"
else
    step "collect $SOURCES into $INTO"
    # Word splitting of SOURCES and COLLECT_OPTIONS is meant (several sources, several
    # options), and so is pathname expansion of SOURCES (exports/*).
    # shellcheck disable=SC2086
    "$TOURNAMENT" collect $SOURCES --into "$INTO" $COLLECT_OPTIONS
    code=$?
    if [ "$code" -ne 0 ]; then
        failed collect "$code"
        echo "== stopped: nothing usable was collected, or collect could not run"
        exit "$status"
    fi
fi

step "validate $CONFIG"
"$TOURNAMENT" validate "$CONFIG"
code=$?
case $code in
    0) ;;
    1) echo "== some teams are not ready (validation.csv says why); they lose their games" ;;
    *) failed validate "$code"; exit "$status" ;;
esac

step "run $CONFIG"
"$TOURNAMENT" run "$CONFIG"
code=$?
if [ "$code" -ne 0 ]; then
    failed run "$code"
    # A run stopped on purpose (Ctrl-C, a signal) or refused at its start publishes nothing;
    # one that failed on the way publishes what it stored.
    if [ "$code" -eq 2 ] || [ "$code" -ge 128 ]; then
        exit "$status"
    fi
fi

step "report $CONFIG"
"$TOURNAMENT" report "$CONFIG" || failed report $?

# After the deadline, marks refuse games whose master seed runs before the deadline already
# played, or played before a team's files last changed (their draws were published while
# teams could still submit): change `seed:` in the config once no team can submit any more;
# the next night plays every game again (docs/marks.md).
step "marks $CONFIG with $SCHEME"
"$TOURNAMENT" marks "$CONFIG" --scheme "$SCHEME" || failed marks $?

step "done (status $status)"
exit "$status"
