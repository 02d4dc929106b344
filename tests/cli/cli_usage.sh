#!/bin/bash
# Command line handling: help for every command, exit status 2 for bad usage.
. "$(dirname "$0")/lib.sh"

R=$RINGSIDE

# Every command of main.c's table.  --help must list exactly these: a
# command added there and not here fails, so it gets its help checked too.
COMMANDS="record snapshot report dump decode archive capture stat run enable disable hook"

note "top level"
run 2 noargs "$R"
expect_in "$WORK/noargs.err" "usage: ringside COMMAND"
run 0 help "$R" --help
listed=$(awk '/^commands:$/ { f = 1; next } f && NF == 0 { exit } f { print $1 }' \
	"$WORK/help.out" | sort | xargs)
# shellcheck disable=SC2086 # one word per command
expect_eq "commands listed by --help" "$listed" "$(printf '%s\n' $COMMANDS | sort | xargs)"
run 0 h "$R" -h
cmp -s "$WORK/help.out" "$WORK/h.out" || fail "-h and --help differ"
run 0 helpnone "$R" help
cmp -s "$WORK/help.out" "$WORK/helpnone.out" || fail "'help' and --help differ"
run 0 version "$R" --version
expect_in "$WORK/version.out" "ringside "
run 2 bogus "$R" frobnicate
expect_in "$WORK/bogus.err" "'frobnicate' is not a ringside command"
run 2 helpbogus "$R" help frobnicate
expect_in "$WORK/helpbogus.err" "no command 'frobnicate'"

note "--help, -h and 'help COMMAND' of every command"
for c in $COMMANDS; do
	run 0 "help-$c" "$R" "$c" --help
	expect_in "$WORK/help-$c.out" "usage: ringside $c"
	[ ! -s "$WORK/help-$c.err" ] || fail "$c --help wrote to stderr"
	run 0 "h-$c" "$R" "$c" -h
	cmp -s "$WORK/help-$c.out" "$WORK/h-$c.out" || fail "$c: -h and --help differ"
	run 0 "helpcmd-$c" "$R" help "$c"
	cmp -s "$WORK/help-$c.out" "$WORK/helpcmd-$c.out" ||
		fail "'help $c' and '$c --help' differ"
	long=$(awk 'length > 80' "$WORK/help-$c.out")
	[ -z "$long" ] || fail "$c --help: lines wider than 80 columns: $long"
done

note "the region commands name every source: path, fd:N, DOMAIN, --vm SOCKET"
for c in record snapshot stat; do
	for w in "REGION" "fd:N" "DOMAIN" "--vm SOCKET"; do
		expect_in "$WORK/help-$c.out" "$w"
	done
done
expect_in "$WORK/help-snapshot.out" "--vm pauses the vCPUs; a DOMAIN is suspended"

note "bad usage exits 2 and says what is wrong"
run 2 rec-noregion "$R" record -o x.data
expect_in "$WORK/rec-noregion.err" "which region"
run 2 rec-nooutput "$R" record /dev/shm/whatever
expect_in "$WORK/rec-nooutput.err" "-o FILE"
run 2 rec-two "$R" record a b -o x.data
expect_in "$WORK/rec-two.err" "'b' is extra"
run 2 rec-interval "$R" record a -o x --interval 0
expect_in "$WORK/rec-interval.err" "--interval"
run 2 rec-interval2 "$R" record a -o x --interval 12ms
run 2 rec-duration "$R" record a -o x --duration abc
expect_in "$WORK/rec-duration.err" "--duration"
run 2 rec-duration0 "$R" record a -o x --duration 0
run 2 rec-unknown "$R" record a -o x --frobnicate
expect_in "$WORK/rec-unknown.err" "unknown option '--frobnicate'"
run 2 rec-short "$R" record a -o x -z
expect_in "$WORK/rec-short.err" "unknown option '-z'"
run 2 rec-noval "$R" record a -o
expect_in "$WORK/rec-noval.err" "needs a value"
run 2 rec-doorbell "$R" record a -o x --doorbell-fd -3
run 2 snap-noregion "$R" snapshot -o x
run 2 capture-none "$R" capture
expect_in "$WORK/capture-none.err" "which domain?"
run 1 capture-nosvc "$R" capture web1 --socket "$WORK/no.sock"
expect_in "$WORK/capture-nosvc.err" "no service listens on $WORK/no.sock"
run 2 rep-nofile "$R" report
expect_in "$WORK/rep-nofile.err" "which file"
run 2 rep-two "$R" report a b
run 2 rep-unknown "$R" report --frobnicate x
run 2 dump-json "$R" dump --json x
run 2 stat-count "$R" stat r --count 3
expect_in "$WORK/stat-count.err" "--count needs --interval"
run 2 stat-interval "$R" stat r --interval -1
run 2 stat-count0 "$R" stat r --interval 1 --count 0
run 2 stat-noregion "$R" stat
expect_in "$WORK/stat-noregion.err" "a libvirt DOMAIN or --vm SOCKET"
run 2 stat-both "$R" stat r --vm s
expect_in "$WORK/stat-both.err" "not both"
run 2 stat-vm-noval "$R" stat --vm
expect_in "$WORK/stat-vm-noval.err" "needs a value"
echo "ok"
