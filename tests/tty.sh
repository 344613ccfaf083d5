#!/bin/sh
# tty.sh BIN ROOT: colour only on a terminal, and never with NO_COLOR.
# Uses script(1) for a pseudo-terminal; skips (77) without it.
bin=$1
cd "$2" || exit 1
if ! command -v script >/dev/null 2>&1; then
	echo "SKIP: script(1) is not installed"
	exit 77
fi
esc=$(printf '\033')
fail=0
out=$(script -qc "$bin debug profiles/promptstack.toml -u hi" /dev/null </dev/null)
case $out in *"$esc["*) ;; *) echo "tty: no colour on a terminal"; fail=1 ;; esac
out=$(NO_COLOR=1 script -qc "$bin debug profiles/promptstack.toml -u hi" /dev/null </dev/null)
case $out in *"$esc["*) echo "tty: colour despite NO_COLOR"; fail=1 ;; esac
out=$("$bin" debug profiles/promptstack.toml -u hi 2>&1)
case $out in *"$esc["*) echo "tty: colour into a pipe"; fail=1 ;; esac
out=$(script -qc "$bin build nope.toml" /dev/null </dev/null)
case $out in *"$esc[1;31merror"*) ;; *) echo "tty: diagnostics not coloured on a terminal"; fail=1 ;; esac
# strata diff: the same rule.
d=tests/golden/diff-entry-text
out=$(script -qc "$bin diff --profiles $d/a.toml $d/b.toml -u hi" /dev/null </dev/null)
case $out in *"$esc[32m"*) ;; *) echo "tty: diff not coloured on a terminal"; fail=1 ;; esac
out=$(NO_COLOR=1 script -qc "$bin diff --profiles $d/a.toml $d/b.toml -u hi" /dev/null </dev/null)
case $out in *"$esc["*) echo "tty: diff coloured despite NO_COLOR"; fail=1 ;; esac
out=$("$bin" diff --profiles $d/a.toml $d/b.toml -u hi)
case $out in *"$esc["*) echo "tty: diff coloured into a pipe"; fail=1 ;; esac
# strata batch --progress: a progress line on a terminal only.
out=$(printf '{"user":"hi"}\n' | script -qc "$bin batch --progress profiles/companion.toml" /dev/null)
case $out in *"1 lines, 0 errors"*) ;; *) echo "tty: no batch progress on a terminal"; fail=1 ;; esac
out=$(printf '{"user":"hi"}\n' | "$bin" batch --progress profiles/companion.toml 2>&1 >/dev/null)
[ -z "$out" ] || { echo "tty: batch progress into a pipe"; fail=1; }
# ... and by default: on a terminal a progress line, --no-progress none.
out=$(printf '{"user":"hi"}\n' | script -qc "$bin batch profiles/companion.toml" /dev/null)
case $out in *"1 lines, 0 errors"*) ;; *) echo "tty: no default batch progress on a terminal"; fail=1 ;; esac
out=$(printf '{"user":"hi"}\n' | script -qc "$bin batch --no-progress profiles/companion.toml" /dev/null)
case $out in *"1 lines, 0 errors"*) echo "tty: --no-progress shows progress"; fail=1 ;; esac
out=$(printf '{"user":"hi"}\n' | "$bin" batch profiles/companion.toml 2>&1 >/dev/null)
[ -z "$out" ] || { echo "tty: default batch progress into a pipe"; fail=1; }
[ $fail -eq 0 ] && echo "tty: colour on terminals only, NO_COLOR honoured"
exit $fail
