# L2: ten includes per file, seven levels deep: 1.3 KB of templates make
# 10^7 includes (out of memory after a minute before).
mkdir prompts
printf '[prompt]\npersona = "persona.md"\n[output]\nmodel = "m"\n' >p.toml
echo '{{include::c0.md}}' >prompts/persona.md
for i in 0 1 2 3 4 5 6; do
	j=$((i + 1))
	for k in 1 2 3 4 5 6 7 8 9 10; do printf '{{include::c%d.md}}' $j; done >prompts/c$i.md
done
echo leaf >prompts/c7.md
run 2 400 1 "$bin" build p.toml -u hi -f text
grep -q 'includes expand to more than' err || { echo "cost include-fanout: no diagnostic"; exit 1; }
