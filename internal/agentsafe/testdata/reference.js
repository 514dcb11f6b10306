// Differential oracle for TestNodeDifferential (internal/agentsafe).
//
// A re-statement of the agent-safe.intent/1 reference algorithm
// (decionis/agent-safe-pipeline, packages/pipeline/src/intent/
// CanonicalIntentHasher.ts: capture, assertBounded, canonicalize), written
// for this test, not copied: JSON.parse, bound-check, rebuild objects with
// Object.keys(v).sort() (UTF-16 code-unit order), JSON.stringify, UTF-8,
// SHA-256.
//
// Usage: node reference.js DIR COUNT
// Reads DIR/doc-NNNNN.json for NNNNN in [0, COUNT) and prints one line per
// document: "ok <hex of canonical UTF-8> sha256:<hex>" or "err <CODE>".
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const crypto = require("node:crypto");

const LIMITS = { maxDepth: 20, maxEntries: 5000, maxArrayLength: 1000, maxBytes: 100 * 1024 };
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

function assertBounded(value, depth, count) {
  if (depth > LIMITS.maxDepth) throw new Error("INTENT_TOO_DEEP");
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new Error("INVALID_NUMBER");
    return;
  }
  if (Array.isArray(value)) {
    if (value.length > LIMITS.maxArrayLength) throw new Error("INTENT_ARRAY_TOO_LARGE");
    for (const child of value) {
      count();
      assertBounded(child, depth + 1, count);
    }
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (FORBIDDEN.has(key)) throw new Error("UNSAFE_INTENT_KEY");
    count();
    assertBounded(child, depth + 1, count);
  }
}

function canonicalize(value) {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = canonicalize(value[key]);
  return out;
}

function run(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return "err SYNTAX";
  }
  try {
    let entries = 0;
    assertBounded(value, 0, () => {
      entries += 1;
      if (entries > LIMITS.maxEntries) throw new Error("INTENT_TOO_COMPLEX");
    });
    const canonical = JSON.stringify(canonicalize(value));
    const bytes = Buffer.from(canonical, "utf8");
    if (bytes.length > LIMITS.maxBytes) throw new Error("INTENT_TOO_LARGE");
    const digest = crypto.createHash("sha256").update(bytes).digest("hex");
    return `ok ${bytes.toString("hex")} sha256:${digest}`;
  } catch (e) {
    return `err ${e.message}`;
  }
}

const [dir, countText] = process.argv.slice(2);
const lines = [];
for (let i = 0; i < Number(countText); i++) {
  const name = path.join(dir, `doc-${String(i).padStart(5, "0")}.json`);
  lines.push(run(fs.readFileSync(name, "utf8")));
}
process.stdout.write(lines.join("\n") + "\n");
