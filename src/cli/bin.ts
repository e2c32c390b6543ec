#!/usr/bin/env node
import { main } from './main.js';

const exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTTY: Boolean(process.stderr.isTTY),
});
process.exitCode = exitCode;
