// Compiles each JSON Schema with ajv in strict mode and validates sample messages.
//
//   node validate.mjs SAMPLES.json
//
// SAMPLES.json maps a schema file's path to the messages to validate against it:
// {"protocol/schema/client.json": [message, ...], ...}. Prints one JSON object
// that maps each path to [{"valid": bool, "errors": [...]}, ...], one a message,
// in order. A schema that strict mode refuses (an unknown keyword, a loose
// type, an unknown format) makes compile throw: the exit code is then 1.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const samples = JSON.parse(readFileSync(process.argv[2], "utf8"));
const verdicts = {};
for (const [path, messages] of Object.entries(samples)) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(path, "utf8")));
  verdicts[path] = messages.map((message) => {
    const valid = validate(message);
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    return { valid, errors: valid ? [] : errors };
  });
}
process.stdout.write(JSON.stringify(verdicts) + "\n");
