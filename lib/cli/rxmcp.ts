#!/usr/bin/env node
/** The `rxmcp` command's entry: see main.ts. */
import { processIo } from './io';
import { main } from './main';

void main(process.argv.slice(2), processIo()).then((code) => process.exit(code));
