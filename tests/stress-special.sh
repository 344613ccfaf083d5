#!/bin/sh
# stress-special.sh BIN: special files fail fast with a clear message.
# A FIFO or a device named in a profile is refused without being opened
# for a blocking read; pipes and devices named on the command line are
# read, but only up to 64 MiB (SOURCE_STREAM_MAX).  Each command runs
# under timeout(1), so a hang fails the test instead of stalling it.
bin=$1
tmp=$(mktemp -d) || exit 1
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir prompts
mkfifo prompts/fifo fifo.toml ctx.fifo || { echo "stress-special: no mkfifo"; exit 77; }
printf '[prompt]\npersona = "fifo"\n[output]\nmodel = "m"\n' >fifo-persona.toml
printf '[prompt]\npersona = "/dev/zero"\n[output]\nmodel = "m"\n' >zero-persona.toml
printf 'prompt:\n  persona: /dev/zero\noutput:\n  model: m\n' >zero-persona.yaml
printf 'extends = "fifo.toml"\n' >fifo-extends.toml
printf '[[context]]\nname = "memory"\n[output]\nmodel = "m"\n' >ctx.toml
fail=0
# check WHAT STATUS PATTERN CMD...: exit STATUS, stderr matching PATTERN.
check() {
	what=$1 want=$2 pat=$3
	shift 3
	timeout 60 "$@" >out 2>err
	st=$?
	if [ $st -ne "$want" ]; then
		echo "stress-special: $what: exit $st, expected $want"
		head -c 2000 err; fail=1
	elif [ -n "$pat" ] && ! grep -q "$pat" err; then
		echo "stress-special: $what: stderr lacks '$pat':"
		head -c 2000 err; fail=1
	else
		echo "stress-special: $what: ok"
	fi
}
check "FIFO as persona" 1 "it is a FIFO, and a file named in a profile" \
	"$bin" build fifo-persona.toml -u hi
check "FIFO as extends" 1 "fifo.toml: it is a FIFO" \
	"$bin" build fifo-extends.toml -u hi
check "/dev/zero as persona" 1 "it is a character device" \
	"$bin" build zero-persona.toml -u hi
check "/dev/zero as persona (YAML)" 1 "it is a character device" \
	"$bin" check zero-persona.yaml
check "/dev/zero as -c" 1 "longer than 64 MiB" \
	"$bin" build ctx.toml -u hi -c memory=/dev/zero
check "/dev/zero as -H" 1 "longer than 64 MiB" \
	"$bin" build ctx.toml -u hi -H /dev/zero
check "/dev/zero on stdin" 1 "standard input: a character device longer" \
	"$bin" build ctx.toml -u - </dev/zero
head -c 70000000 /dev/zero | tr '\0' x >big 2>/dev/null
check "70 MB through a pipe" 1 "standard input: a FIFO longer than 64 MiB" \
	sh -c 'cat big | "$0" build ctx.toml -u -' "$bin"
check "/dev/null as -c" 0 "" \
	"$bin" build ctx.toml -u hi -c memory=/dev/null
# A FIFO on the command line waits for its writer, as cat(1) would.
(printf 'from the fifo' >ctx.fifo) &
writer=$!
check "FIFO as -c, with a writer" 0 "" \
	"$bin" build ctx.toml -u hi -c memory=ctx.fifo
grep -q "from the fifo" out || { echo "stress-special: FIFO text missing"; fail=1; }
wait "$writer" 2>/dev/null
writer=
exit $fail
