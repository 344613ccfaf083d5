#!/bin/sh
# conformance.sh DECODER SHARED: run the shared TOML 1.0.0 suite against
# our decoder.  Skips (exit 77) when ../shared or python3 is absent.
decoder=$1
shared=$2
runner=$shared/conformance/toml/run-toml-test
if [ ! -x "$runner" ] && [ ! -f "$runner" ]; then
	echo "SKIP: $shared/conformance/toml is absent"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
exec python3 "$runner" -j 2 "$decoder" "$shared/conformance/toml"
