#!/usr/bin/env node
/** The `rxmcp` command's entry: see main.ts. */
import { enableCompileCache } from './compile-cache';
import { processIo } from './io';
import { main } from './main';

// Before main loads a command's modules (it loads each command when it runs).
enableCompileCache();
void main(process.argv.slice(2), processIo()).then((code) => process.exit(code));
