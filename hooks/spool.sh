#!/bin/sh
# trailboss spool: the hook of agents that wait for their hooks (Codex, Gemini CLI). Node's
# start-up alone costs such an agent 30-60 ms per event; this stores the event and returns in a
# few: it writes stdin, with the agent's id and the tmux pane, into a new file of
# $TRAILBOSS_HOME/sessions/.spool/, then starts the emitter detached to fold it into the
# session's record. Readers fold what is left on read, so an event is never lost when that fold
# does not run. It prints nothing and always exits 0.
# Every program it runs costs the agent 1-3 ms, so it runs one (cat) and waits for no other:
# - no clock program: the file's mtime is the event's time (record/spool.ts), and the name only
#   has to be new: the uptime in centiseconds, read by the shell itself, and the pid;
# - no temp file and mv: the file is written in place; readers take one whose payload is not
#   whole JSON yet for one still being written while it is young, and for a lost event (logged,
#   kept aside) once it is old.
#   usage: spool.sh <agent id> [<node executable>]
umask 077
agent=$1
node=${2:-}

drain() { cat > /dev/null 2>&1; exit 0; }

[ "${TRAILBOSS_DISABLE:-}" = 1 ] && drain
# The agent id names nothing on disk, but it is written into the file: letters, digits, '-'.
case $agent in '' | *[!a-z0-9-]*) drain ;; esac
home=${TRAILBOSS_HOME:-${HOME:-}/.trailboss}
case $home in /*) ;; *) drain ;; esac
sessions=$home/sessions
spool=$sessions/.spool
# The home and its sessions folder: a folder of ours, reached directly or through a symlink to
# one (docs/design.md §2.8, the rule lib/fs/home-check.ts applies), or made here (0700); the fold
# tightens one of ours that others may write. The spool folder: a real folder of ours, never a link.
for dir in "$home" "$sessions"; do
  if [ ! -d "$dir" ]; then
    if [ -L "$dir" ]; then drain; fi
    mkdir -- "$dir" 2> /dev/null || [ -d "$dir" ] || drain
  fi
  if [ ! -O "$dir" ]; then drain; fi
done
if [ -L "$spool" ]; then drain; fi
if [ ! -d "$spool" ]; then mkdir -- "$spool" 2> /dev/null || [ -d "$spool" ] || drain; fi
if [ -L "$spool" ] || [ ! -O "$spool" ]; then drain; fi

# /proc/uptime ("12345.67 ..."), read without a fork; date only where there is no /proc.
up=
{ read -r up _ < /proc/uptime; } 2> /dev/null
case $up in *.*) up=${up%%.*}${up#*.} ;; esac
case $up in '' | *[!0-9]*) up=$(date +%s 2> /dev/null) ;; esac
name=${up:-0}-$$

# The variables the event keeps: the pane's, and those the agent's own hooks read. The build
# writes each agent's list in here, in place of an `env_names=` line (lib/agents/spool-env.ts, from its
# sessionEnv in lib/agents/<agent>/hooks.ts): one source for this script and the fold that reads
# them back. Unbuilt, this file keeps none.
env_names=
# One header line per value; a value holding a line break is left out rather than split.
header="trailboss-spool 1
agent $agent"
nl='
'
for var in $env_names; do
  eval "val=\${$var:-}"
  case $val in '' | *"$nl"*) continue ;; esac
  header="$header
env $var=$val"
done

# The agent's process, for `send` to tell that its pane still runs it: the hook's parent and,
# where that is a shell the agent ran the hook in, its parents up to the first that is not one
# (the shells lib/proc/agent-process.ts skips), as /proc says: read by the shell's own `read`,
# no fork. That module picks the agent among them.
header="$header
ppid $PPID"
pid=$PPID
for hop in 1 2 3; do
  stat=
  { read -r stat < "/proc/$pid/stat"; } 2> /dev/null
  case $stat in '' | *"$nl"*) break ;; esac
  header="$header
proc $stat"
  comm=${stat#*\(}
  case ${comm%\)*} in sh | bash | dash | zsh | ksh | mksh | fish | busybox) ;; *) break ;; esac
  # Field 4 (the parent) is the second word after the command name, which ends at the last ') '.
  set -f
  set -- ${stat##*") "}
  set +f
  pid=${2:-}
  case $pid in '' | *[!0-9]* | 0 | 1) break ;; esac
done

# noclobber: a new file is created, never an existing one (or a link planted there) opened. A
# write that fails half way leaves a file the fold reports as lost; one never made is drained.
set -C
{ printf '%s\n\n' "$header" && cat; } > "$spool/$name.ev" 2> /dev/null || drain

# The fold, detached: its own session, no stdio of the agent's, so the agent waits for none of it.
if [ -n "$node" ] && [ -x "$node" ]; then
  emitter=${0%/*}/emit.cjs
  if command -v setsid > /dev/null 2>&1; then
    setsid "$node" "$emitter" --fold-spool < /dev/null > /dev/null 2>&1 &
  else
    "$node" "$emitter" --fold-spool < /dev/null > /dev/null 2>&1 &
  fi
fi
exit 0
