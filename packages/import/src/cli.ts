#!/usr/bin/env node
// The `portcullis` command (`portcullis import …`): see README.md.
import { runCommand } from "./command.js";

process.exitCode = await runCommand(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
  // A getter, so a resized terminal gets lines of its new width.
  get columns() {
    return process.stderr.columns;
  },
});
