#!/bin/sh
# gen.sh BIN: write old.json and new.json, two SillyTavern builds of the
# html-tavern case's inputs, new with preset-new.json: the main prompt
# reworded, "blank" gone, "weather" added, nsfw enabled, jailbreak
# disabled, worldInfoBefore after the card, "late" deeper, and a context
# large enough for the oldest chat message.  Run from this directory.
set -eu
bin=${1:-../../../build/strata}
t=../html-tavern
for side in old new; do
	preset=$t/preset.json
	[ $side = new ] && preset=preset-new.json
	"$bin" debug --card $t/card.json --preset $preset \
	    --settings $t/settings.json --world $t/lore.json \
	    --chat $t/chat.jsonl --regex $t/scripts.json \
	    -u 'hi, is the lamp by the harbor lit for {{char}}? <script>alert("turn")</script> 🙂' \
	    --seed 7 --now 2026-01-02T03:04:05Z --set output.model=m \
	    --json >$side.json
done
