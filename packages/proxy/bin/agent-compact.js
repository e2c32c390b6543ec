#!/usr/bin/env node
// The bin links to this committed file, so `npm ci` links `agent-compact` before the first build.
import '../dist/cli/bin.js';
