# Start and end lines for the long stages of the build (POSIX sh, sourced).
#
#   stage_begin LABEL TEXT [LOG...]   "LABEL: TEXT, log LOG" and starts a clock
#   stage_end LABEL [RESULT]          "LABEL: done in 3m12s[: RESULT]" and
#                                     stops the clock stage_begin started last
#   stage_pop                         stops that clock silently, leaving the
#                                     time in stage_took, for a line of one's own
#   stage_now                         seconds since the epoch
#   stage_since T                     the time since stage_now gave T: 42s,
#                                     3m12s, 1h02m03s
#   stage_rel PATH                    PATH relative to the repository top when
#                                     it is under it, else PATH as it is
#
# Stages nest.  The sourcing script sets `top` (the repository top) first.
# Everything goes to stdout; failures keep their own messages on stderr.
# shellcheck shell=sh

_stage_top=${top:?stage.sh: set top before sourcing it}
_stage_clock=

stage_now() { date +%s; }

stage_since() {
    _stage_s=$(( $(stage_now) - $1 ))
    if [ "$_stage_s" -ge 3600 ]; then
        printf '%dh%02dm%02ds\n' $((_stage_s / 3600)) $((_stage_s % 3600 / 60)) $((_stage_s % 60))
    elif [ "$_stage_s" -ge 60 ]; then
        printf '%dm%02ds\n' $((_stage_s / 60)) $((_stage_s % 60))
    else
        printf '%ds\n' "$_stage_s"
    fi
}

stage_rel() {
    case $1 in
    "$_stage_top") echo . ;;
    "$_stage_top"/*) echo "${1#"$_stage_top"/}" ;;
    *) echo "$1" ;;
    esac
}

stage_begin() {
    _stage_line="$1: $2"
    shift 2
    if [ $# -gt 0 ]; then
        _stage_sep=", log "
        [ $# -eq 1 ] || _stage_sep=", logs "
        for _stage_log in "$@"; do
            _stage_line="$_stage_line$_stage_sep$(stage_rel "$_stage_log")"
            _stage_sep=", "
        done
    fi
    echo "$_stage_line"
    _stage_clock="$(stage_now) $_stage_clock"
}

stage_pop() {
    stage_took=$(stage_since "${_stage_clock%% *}")
    _stage_clock=${_stage_clock#* }
}

stage_end() {
    stage_pop
    if [ $# -gt 1 ]; then
        echo "$1: done in $stage_took: $2"
    else
        echo "$1: done in $stage_took"
    fi
}
