#!/usr/bin/env node
// Entry point of the `watchkeeper` command; the compiled code lives in dist/ (npm run build).
import { main } from '../dist/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`watchkeeper: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
