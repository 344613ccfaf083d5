#!/usr/bin/env node
// validate.js AJV_DIR FILE...: check Ollama /api/chat request bodies
// against chat-request.schema.json (beside this file) with the ajv that
// ../shared/api-schemas installed.  Prints each problem; exit 1 if any.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require(path.join(process.argv[2], 'ajv', 'dist', '2020')).default;
const ajv = new Ajv2020({ allErrors: true, strict: false });
const schema = JSON.parse(fs.readFileSync(
  path.join(__dirname, 'chat-request.schema.json'), 'utf8'));
const check = ajv.compile(schema);
let bad = 0;
for (const file of process.argv.slice(3)) {
  const body = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!check(body)) {
    bad++;
    for (const e of check.errors)
      console.log(`${file}: ${e.instancePath || '/'} ${e.message}`);
  }
}
process.exit(bad ? 1 : 0);
