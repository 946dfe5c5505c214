#!/usr/bin/env node
// The `portcullis` command (`portcullis import …`): see README.md.
import { runCommand } from "./command.js";

process.exitCode = await runCommand(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
