#!/bin/sh
# make-man.sh SCHEDLAB -- the man page schedlab.1 on stdout, generated from
# the program's own --help texts (`schedlab --help` and `schedlab COMMAND
# --help` for every command it lists), so the page never disagrees with
# the binary. Run by make ($(BUILD)/schedlab.1) and installed by
# `make install`.
set -eu
bin=${1:?usage: make-man.sh path/to/schedlab}
version=$("$bin" --version | sed -n '1s/^schedlab //p')

# roff: a backslash is \e; a line starting with . or ' is escaped with \&
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cat <<HEAD
.TH SCHEDLAB 1 "" "schedlab $version" "User Commands"
.SH NAME
schedlab \\- simulate NVIDIA GPU scheduling, import profiler traces, serve a dashboard
.SH SYNOPSIS
.nf
HEAD
"$bin" --help | roff
echo ".fi"
echo ".SH COMMANDS"
for cmd in $("$bin" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
    echo ".SS $cmd"
    echo ".nf"
    "$bin" "$cmd" --help | roff
    echo ".fi"
done
cat <<TAIL
.SH ENVIRONMENT
.TP
.B SCHEDLAB_DB
the database when no \\fB\\-\\-db\\fR is given (default \\fI./schedlab.db\\fR).
.TP
.B SCHEDLAB_TOKEN
the write token of \\fBschedlab serve\\fR when neither \\fB\\-\\-token\\fR nor \\fB\\-\\-token\\-file\\fR is given.
.TP
.B SCHEDLAB_READ_TOKEN
the read token of \\fBschedlab serve\\fR when no \\fB\\-\\-read\\-token\\fR is given.
.SH FILES
.TP
.I PREFIX/share/schedlab/web
the dashboard that \\fBschedlab serve\\fR serves (\\fB\\-\\-web\\fR overrides it).
.TP
.I PREFIX/share/schedlab/scenarios
the shipped paper scenarios, stored as experiments by \\fBschedlab serve\\fR.
.SH EXIT STATUS
0 on success, 2 on bad input (one line on standard error names the file, the
place and the problem), 1 on any other failure.
.SH SEE ALSO
.BR c++filt (1),
.BR sqlite3 (1)
TAIL
